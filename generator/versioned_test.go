package generator_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/emit"
	"github.com/rebasegen/rebasegen/generator/synth"
	"github.com/rebasegen/rebasegen/generator/verdict"
	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// A kapp.k14s.io/versioned ConfigMap lives as NAME-ver-N, the name kapp gave it
// (diff/change_set_with_versioned_rs.go assignNewNames); its labels are those kapp wrote before
// naming it (the association is of the base name, resources/labeled_resources.go Prepare). Its
// name is no change from Git: unchanged in Git, check is clean, as kapp keeps the version; with
// its data changed in Git, the data is the pending change, not the name (probe4 finding 4: the
// name was pending, and the residual was kapp creating NAME-ver-1-ver-2).
func TestVersionedResourceIsJudgedByItsBaseName(t *testing.T) {
	const ns, base, live = "hpa-replicas", "app-config", "app-config-ver-3"
	assoc := kappconv.Association(kappconv.ResourceKey(ns, "", "ConfigMap", base))
	applied, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "data": map[string]any{"mode": "a"},
		"metadata": map[string]any{"name": live, "namespace": ns, "annotations": map[string]any{kappconv.Versioned: ""},
			"labels": map[string]any{kappconv.AppLabel: "1795657514432486852", kappconv.AssociationLabel: assoc}}})
	if err != nil {
		t.Fatal(err)
	}
	liveCM := `---
apiVersion: v1
kind: ConfigMap
metadata:
  name: ` + live + `
  namespace: ` + ns + `
  uid: cm-uid-1
  resourceVersion: "99"
  creationTimestamp: "2026-11-26T01:45:14Z"
  labels:
    kapp.k14s.io/app: "1795657514432486852"
    kapp.k14s.io/association: ` + assoc + `
  annotations:
    kapp.k14s.io/versioned: ""
    kapp.k14s.io/identity: v1;` + ns + `//ConfigMap/` + live + `;v1
    kapp.k14s.io/original: '` + string(applied) + `'
  managedFields:
  - apiVersion: v1
    fieldsType: FieldsV1
    fieldsV1: {"f:data": {".": {}, "f:mode": {}}, "f:metadata": {"f:annotations": {".": {}, "f:kapp.k14s.io/versioned": {}, "f:kapp.k14s.io/identity": {}, "f:kapp.k14s.io/original": {}}, "f:labels": {".": {}, "f:kapp.k14s.io/app": {}, "f:kapp.k14s.io/association": {}}}}
    manager: kapp
    operation: Update
    time: "2026-11-26T01:45:14Z"
data:
  mode: a
`
	desiredCM := func(mode string) string {
		return "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + base + "\n  annotations:\n    kapp.k14s.io/versioned: \"\"\ndata:\n  mode: " + mode + "\n"
	}
	read := func(name string) string {
		bs, err := os.ReadFile(filepath.Join("..", "fixtures", "hpa-replicas", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(bs)
	}
	inputs := func(mode string) generator.Inputs {
		return generator.Inputs{Namespace: ns,
			Desired: []string{writeFile(t, "desired.yaml", read("desired.yaml")+desiredCM(mode))},
			Live:    []string{writeFile(t, "live.yaml", read("live.yaml")+liveCM)}}
	}
	g, err := generator.Generate(inputs("a"), synth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := emit.WriteRules(&b, g.Rules, emit.Header{Version: "test", Options: emit.Options{Format: emit.FormatConfig}}); err != nil {
		t.Fatal(err)
	}
	rules := writeFile(t, "rules.yml", b.String())
	for _, tc := range []struct{ mode, want string }{
		{"a", ""},
		{"b", "pending core/ConfigMap hpa-replicas/app-config data.mode"},
	} {
		c, err := generator.Check(inputs(tc.mode), []string{rules})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range c.Findings(verdict.Gate{}) {
			if f.Fails || f.Resource.Name == base {
				got = append(got, string(f.Kind)+" "+f.Resource.String()+" "+f.Path)
			}
		}
		if strings.Join(got, "\n") != tc.want {
			t.Errorf("data.mode %s in Git: findings\n%s\nwant\n%s", tc.mode, strings.Join(got, "\n"), tc.want)
		}
	}
}
