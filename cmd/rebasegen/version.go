package main

import (
	"fmt"
	"io"
	"runtime/debug"

	"github.com/urfave/cli/v2"
)

// embedded are the modules whose behaviour rebasegen reproduces, by the name `version` prints:
// kapp's diff engine, ytt's templating, Kubernetes' defaulting code.
var embedded = []struct{ name, module string }{
	{"kapp", "carvel.dev/kapp"},
	{"ytt", "carvel.dev/ytt"},
	{"kubernetes", "k8s.io/kubernetes"},
}

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print rebasegen's version and the kapp, ytt and Kubernetes versions it embeds",
		Description: helpText(
			"rebasegen version",
			"0 always"),
		Action: func(c *cli.Context) error { return writeVersion(c.App.Writer) },
	}
}

// writeVersion prints rebasegen's version (-ldflags -X main.version, else the module version of a
// `go install`) and, from the binary's build info, the versions of the embedded modules.
func writeVersion(w io.Writer) error {
	info, ok := debug.ReadBuildInfo()
	v := version
	if v == "dev" && ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		v = info.Main.Version
	}
	fmt.Fprintf(w, "rebasegen  %s\n", v)
	for _, e := range embedded {
		fmt.Fprintf(w, "%-10s %s\n", e.name, depVersion(info, e.module))
	}
	if ok {
		fmt.Fprintf(w, "%-10s %s\n", "go", info.GoVersion)
	}
	return nil
}

// depVersion is module's version in the build info, "unknown" without one (a test binary).
func depVersion(info *debug.BuildInfo, module string) string {
	if info != nil {
		for _, d := range info.Deps {
			if d.Path == module {
				if d.Replace != nil && d.Replace.Version != "" {
					return d.Replace.Version
				}
				return d.Version
			}
		}
	}
	return "unknown"
}
