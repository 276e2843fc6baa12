package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/emit"
	"github.com/rebasegen/rebasegen/generator/synth"
)

func generateCommand() *cli.Command {
	return &cli.Command{
		Name:  "generate",
		Usage: "write the narrowest kapp rebase rules that remove the ghost diffs, verified with kapp's diff engine",
		Flags: append(inputFlags(),
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: "-", Usage: "file to write, or - for stdout"},
			&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: "config", Usage: "config, ytt or secret"},
			&cli.BoolFlag{Name: "include-unknown", Usage: "also rule fields nothing explains (warns for each)"},
			&cli.BoolFlag{Name: "force", Usage: "write the rules even when verification fails (still exits 3)"},
			&cli.StringSliceFlag{Name: "namespace-value", Usage: "ytt format: KEY or NS=KEY, write namespaces as #@ data.values.KEY (repeatable)"},
			&cli.StringFlag{Name: "package-install", Usage: "secret format: the PackageInstall the Secret is for"},
		),
		Action: func(c *cli.Context) error {
			format := emit.Format(c.String("format"))
			if format == emit.FormatSecret && c.String("package-install") == "" {
				return fmt.Errorf("--format secret needs --package-install NAME")
			}
			g, err := generator.Generate(inputs(c), synth.Options{IncludeUnknown: c.Bool("include-unknown")})
			if err != nil {
				return err
			}
			h := emit.Header{Version: version, Inputs: inputNames(c), Regenerate: regenerateCommand(c),
				Namespaces: emit.NamespaceValues(c.StringSlice("namespace-value"), g.Rules), PackageInst: c.String("package-install"), SecretNS: c.String("namespace")}
			var out bytes.Buffer
			if err := emit.WriteRules(&out, g.Rules, format, h); err != nil {
				return err
			}
			for _, w := range g.Warnings {
				fmt.Fprintln(c.App.ErrWriter, "warning:", w)
			}
			fmt.Fprintf(c.App.ErrWriter, "%d rules; %s\n", len(g.Rules), g.Verification.Summary())
			if !g.Verification.OK() {
				for _, r := range g.Verification.Residual {
					fmt.Fprintln(c.App.ErrWriter, "residual diff:", r)
				}
				for _, h := range g.Verification.Hidden {
					fmt.Fprintln(c.App.ErrWriter, "rule hides a real change:", h)
				}
				if !c.Bool("force") {
					return cli.Exit("verification failed: nothing written (use --force to write anyway)", exitPending)
				}
			}
			if err := writeOutput(c.String("output"), out.Bytes(), c.App.Writer); err != nil {
				return err
			}
			if !g.Verification.OK() {
				return cli.Exit("verification failed: written because of --force", exitPending)
			}
			return nil
		},
	}
}

// writeOutput writes to a temp file and renames it, so an existing file is never half-written.
func writeOutput(path string, data []byte, stdout io.Writer) error {
	if path == "-" {
		_, err := stdout.Write(data)
		return err
	}
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		// a pipe or device (/dev/stdout, <(...)): renaming over it would replace it
		return os.WriteFile(path, data, 0)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// inputNames are the input file names, sorted: the header does not depend on flag order.
func inputNames(c *cli.Context) []string {
	var names []string
	for _, f := range []string{"desired", "live", "crd", "ruleset"} {
		names = append(names, c.StringSlice(f)...)
	}
	sort.Strings(names)
	return names
}

func regenerateCommand(c *cli.Context) string {
	parts := []string{"rebasegen generate"}
	for _, f := range []string{"desired", "live", "crd", "ruleset", "namespace-value"} {
		vals := append([]string{}, c.StringSlice(f)...)
		sort.Strings(vals)
		for _, v := range vals {
			parts = append(parts, "--"+f+" "+v)
		}
	}
	for _, f := range []string{"namespace", "format", "package-install", "output"} {
		if c.IsSet(f) {
			parts = append(parts, "--"+f+" "+c.String(f))
		}
	}
	if c.Bool("include-unknown") {
		parts = append(parts, "--include-unknown")
	}
	return strings.Join(parts, " ")
}
