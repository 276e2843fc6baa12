package main

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// noPluginTag is kustomize's build tag leaving out its Go plugin loader (sigs.k8s.io/kustomize/api
// internal/plugins/loader), the only importer of package plugin in the binary: Argo CD's packages
// link kustomize through k8s.io/cli-runtime. A binary linking plugin keeps every method of every
// type it links, which the linker otherwise drops when nothing can call it.
const noPluginTag = "kustomize_disable_go_plugin_support"

// Every way the README and the repository build the binary sets the tag, and with it the binary
// links no package plugin.
func TestBuildsLeaveOutGoPlugins(t *testing.T) {
	for _, c := range []struct{ file, command, tag string }{
		{"../../Makefile", "export GOFLAGS :=", "-tags=" + noPluginTag},
		{"../../action.yml", "go build ", "-tags " + noPluginTag},
		{"../../README.md", "go install ", "-tags " + noPluginTag},
	} {
		data, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		found := 0
		for _, line := range strings.Split(string(data), "\n") {
			if !strings.Contains(line, c.command) || strings.HasPrefix(strings.TrimSpace(line), "#") {
				continue
			}
			found++
			if !regexp.MustCompile(`(^|\s)` + regexp.QuoteMeta(c.tag) + `(\s|$)`).MatchString(line) {
				t.Errorf("%s: %q does not set %s", c.file, strings.TrimSpace(line), c.tag)
			}
		}
		if found == 0 {
			t.Errorf("%s: no line with %q", c.file, c.command)
		}
	}
	links := func(args ...string) bool {
		out, err := exec.Command("go", append([]string{"list", "-deps"}, append(args, ".")...)...).Output()
		if err != nil {
			t.Fatalf("go list: %v", err)
		}
		return strings.Contains("\n"+string(out), "\nplugin\n")
	}
	if links("-tags", noPluginTag) {
		t.Errorf("with -tags %s the binary still links package plugin", noPluginTag)
	}
	if !links("-tags", "") {
		t.Logf("without -tags %s the binary links no package plugin either: the tag is no longer needed", noPluginTag)
	}
}
