package generator_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/emit"
	"github.com/rebasegen/rebasegen/generator/synth"
)

// TestGeneratedConfigIsClean: what rebasegen generate writes lints without a finding.
func TestGeneratedConfigIsClean(t *testing.T) {
	in := generator.Inputs{
		Desired:   []string{filepath.Join("../fixtures", "hpa-replicas", "desired.yaml")},
		Live:      []string{filepath.Join("../fixtures", "hpa-replicas", "live.yaml")},
		Namespace: "hpa-replicas",
	}
	g, err := generator.Generate(in, synth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := emit.WriteRules(&buf, g.Rules, emit.Header{Version: "test", Options: emit.Options{Desired: in.Desired}}); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "rebase-rules.yml")
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := generator.Lint(in, []string{file})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) > 0 {
		t.Errorf("generated Config has findings: %+v", got)
	}
}
