package generator_test

import (
	"bytes"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/emit"
	"github.com/rebasegen/rebasegen/generator/synth"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// A pull request adding a volumeClaimTemplate to the captured StatefulSet, or removing its only
// one: nobody touched the cluster (the live templates are kapp's last apply with the server's
// defaults: apiVersion, kind, status, volumeMode), and spec.volumeClaimTemplates is immutable
// (ValidateStatefulSetUpdate), so kapp's deploy fails on it. The atomic list of another length
// was one value differing from kapp.k14s.io/original by those defaults, so the change was
// "drift" (exit 0, or 3 as drift with --fail-on-drift), and generate dropped the copies of the
// existing template's defaults, which the live object still needs (newcomer7 N7-2).
func TestClaimTemplateChangedInGitIsImmutable(t *testing.T) {
	const file = "../fixtures/hpa-statefulset/desired.yaml"
	edited := func(edit func(spec map[string]any)) []string {
		return []string{editedFixture(t, file, func(u *unstructured.Unstructured) bool {
			if u.GetKind() == "StatefulSet" {
				edit(u.Object["spec"].(map[string]any))
			}
			return true
		})}
	}
	wal := map[string]any{"metadata": map[string]any{"name": "wal"}, "spec": map[string]any{
		"accessModes": []any{"ReadWriteOnce"}, "resources": map[string]any{"requests": map[string]any{"storage": "1Gi"}}}}
	// the rules generated before the pull request, which copy the existing template's defaults
	before, err := generator.Generate(fixture("hpa-statefulset"), synth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var rules bytes.Buffer
	if err := emit.WriteRules(&rules, before.Rules, emit.Header{}); err != nil {
		t.Fatal(err)
	}
	rulesFile := writeFile(t, "rules.yml", rules.String())
	for _, c := range []struct {
		name, path string
		edit       func(spec map[string]any)
	}{
		{"added", "spec.volumeClaimTemplates[1]", func(spec map[string]any) {
			spec["volumeClaimTemplates"] = append(spec["volumeClaimTemplates"].([]any), wal)
		}},
		{"removed", "spec.volumeClaimTemplates", func(spec map[string]any) {
			delete(spec, "volumeClaimTemplates")
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := fixture("hpa-statefulset")
			in.Desired = edited(c.edit)
			ch, err := generator.Check(in, []string{rulesFile})
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, f := range ch.Findings(verdict.Gate{FailOnDrift: true}) {
				if !strings.HasPrefix(f.Path, "spec.volumeClaimTemplates") {
					continue
				}
				if f.Path != c.path || f.Kind != verdict.KindImmutable || !f.Fails {
					t.Errorf("%s: want only %s, %s failing the gate; got %s (fails %v): %s", f.Path, c.path, verdict.KindImmutable, f.Kind, f.Fails, f.Evidence)
				}
				found = found || f.Path == c.path
			}
			if !found {
				t.Errorf("no finding at %s", c.path)
			}
		})
	}
	t.Run("generate", func(t *testing.T) {
		in := fixture("hpa-statefulset")
		in.Desired = edited(func(spec map[string]any) {
			spec["volumeClaimTemplates"] = append(spec["volumeClaimTemplates"].([]any), wal)
		})
		g, err := generator.Generate(in, synth.Options{})
		if err != nil {
			t.Fatal(err)
		}
		// the existing template's defaults, which the server filled in and kapp did not send
		want := map[string]bool{"apiVersion": false, "kind": false, "status": false, "spec.volumeMode": false}
		for _, r := range g.Report.Resources {
			for _, f := range r.Findings {
				leaf, ok := strings.CutPrefix(f.Path.String(), "spec.volumeClaimTemplates[0].")
				if _, listed := want[leaf]; ok && listed {
					want[leaf] = true
					if f.Class != classify.Defaulted {
						t.Errorf("%s: want defaulted, got %s: %s", f.Path, f.Class, f.Evidence)
					}
				}
			}
		}
		for leaf, seen := range want {
			if !seen {
				t.Errorf("no finding at spec.volumeClaimTemplates[0].%s", leaf)
			}
		}
		var b bytes.Buffer
		if err := emit.WriteRules(&b, g.Rules, emit.Header{}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "volumeClaimTemplates") {
			t.Errorf("the rules copy nothing of the existing template:\n%s", b.String())
		}
		if v := g.Verification; len(v.Residual)+len(v.Unknown)+len(v.Hidden) != 0 {
			t.Errorf("want only the pending change, got residual %v, unknown %v, hidden %v", v.Residual, v.Unknown, v.Hidden)
		}
	})
}
