package generator_test

import (
	"encoding/json"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/synth"
	"github.com/rebasegen/rebasegen/generator/verify"
	"github.com/rebasegen/rebasegen/internal/scenario"
)

// storedSecretData is what the API server stores for a Secret manifest's data, computed without
// rebasegen: k8s.io/api's own JSON decoding and generated protobuf code (etcd's encoding).
func storedSecretData(t *testing.T, manifest string) map[string]any {
	t.Helper()
	var s corev1.Secret
	if err := json.Unmarshal([]byte(manifest), &s); err != nil {
		t.Fatal(err)
	}
	pb, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	var back corev1.Secret
	if err := back.Unmarshal(pb); err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(back)
	if err != nil {
		t.Fatal(err)
	}
	var out struct{ Data map[string]any }
	if err := json.Unmarshal(js, &out); err != nil {
		t.Fatal(err)
	}
	return out.Data
}

// A Secret manifest's null data value is stored as "": not drift, ruled so that kapp's engine
// keeps the Secret under both bases, and a value given in Git stays a change.
func TestSecretNullValueStoredEmptyIsNotDrift(t *testing.T) {
	if got := storedSecretData(t, `{"data":{"unset":null}}`)["unset"]; got != "" {
		t.Fatalf("oracle: a null data value is stored as %#v, not \"\"", got)
	}
	s, err := scenario.Load(filepath.Join("..", "fixtures", "secret-empty-values"))
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := s.Objects[0].Live.Object["data"].(map[string]any); v["unset"] != "" {
		t.Fatal("the captured Secret does not hold the oracle's stored value")
	}
	in := generator.Inputs{Desired: []string{filepath.Join(s.Dir, "desired.yaml")}, Live: []string{filepath.Join(s.Dir, "live.yaml")}, Namespace: s.Namespace}
	g, err := generator.Generate(in, synth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range g.Report.Resources {
		for _, f := range r.Findings {
			if f.Path.String() == "data.unset" {
				found = true
				if f.Class != classify.Defaulted {
					t.Errorf("data.unset: %s (%s), want defaulted", f.Class, f.Evidence)
				}
				if f.Live != classify.Masked {
					t.Errorf("data.unset: the live value is shown")
				}
			}
		}
	}
	if !found {
		t.Fatal("no finding for data.unset")
	}
	if v := g.Verification; !v.OK() || v.KeptPairs != 1 {
		t.Fatalf("kapp's engine does not keep the Secret: %s\n%v", v.Summary(), v.Residual)
	}
	changed, err := s.DesiredWithRealChange()
	if err != nil {
		t.Fatal(err)
	}
	res, err := verify.Verify([]verify.Pair{{Desired: changed[0], Live: s.Objects[0].Live}}, append(unstructuredOf(g.Set.Configs), g.Config))
	if err != nil {
		t.Fatal(err)
	}
	for _, base := range verify.Bases() {
		if res[0].Op[base] != verify.OpUpdate {
			t.Errorf("%s: a value given in Git is hidden under the %s base", s.RealChange.Description, base)
		}
	}
}
