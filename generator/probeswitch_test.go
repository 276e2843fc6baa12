package generator_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/emit"
	"github.com/rebasegen/rebasegen/generator/synth"
	"github.com/rebasegen/rebasegen/generator/verdict"
	"github.com/rebasegen/rebasegen/generator/yttrender"
)

// Past the last list item kapp's copy makes every map the object it rebases lacks and the live
// object holds (resources/mod_field_copy.go). The rules generated while the manifest's
// readinessProbe was httpGet copied readinessProbe.httpGet.scheme for every container: once Git
// switched the probe to tcpSocket, kapp wrote httpGet back beside it and the API server refused
// the deploy (more than 1 handler type), while check called the switch "hidden" (newcomer2 finding
// 9, real capture). The generated copy is gated on the manifest declaring httpGet: the switch is a
// pending change kapp applies.
func TestGeneratedCopyDoesNotRecreateASwitchedProbe(t *testing.T) {
	dir := filepath.Join("testdata", "probe-switch")
	before := t.TempDir() // the package before the change: its probe httpGet
	for _, f := range []string{"app.yml", "crd.yml", "values-schema.yml"} {
		bs, err := os.ReadFile(filepath.Join(dir, "config", f))
		if err != nil {
			t.Fatal(err)
		}
		bs = bytes.Replace(bs, []byte("tcpSocket: {port: 8080}"), []byte("httpGet: {path: /healthz, port: 8080}"), 1)
		if err := os.WriteFile(filepath.Join(before, f), bs, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pkg := func(d string) generator.Inputs {
		return generator.Inputs{Live: []string{filepath.Join(dir, "live.yaml")},
			Package: yttrender.Package{Dirs: []string{d}, ValuesFiles: []string{filepath.Join(dir, "values.yml")}}}
	}
	g, err := generator.Generate(pkg(before), synth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := emit.WriteRules(&b, g.Rules, emit.Header{Version: "test", Options: emit.Options{Namespace: "blog"}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "readinessProbe, httpGet, scheme]") {
		t.Fatalf("the generated rules no longer copy httpGet.scheme; the test needs another field:\n%s", b.String())
	}
	rules := writeFile(t, "rules.yml", b.String())
	c, err := generator.Check(pkg(filepath.Join(dir, "config")), []string{rules})
	if err != nil {
		t.Fatal(err)
	}
	fs := c.Findings(verdict.Gate{})
	for _, f := range fs {
		if f.Kind == verdict.KindHidden || f.Kind == verdict.KindResidual {
			t.Errorf("%s: %+v", f.Kind, f)
		}
	}
	if !slices.ContainsFunc(fs, func(f verdict.Finding) bool {
		return f.Kind == verdict.KindPending && f.Path == "spec.template.spec.containers[name=web].readinessProbe.tcpSocket"
	}) {
		t.Errorf("the probe switched in Git is not a pending change: %+v", fs)
	}
}
