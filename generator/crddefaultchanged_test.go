package generator_test

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	ctldiff "carvel.dev/kapp/pkg/kapp/diff"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/internal/kapptest"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// crdDefaultChanged writes fixtures/crd-defaults' manifests with a pull request made to them
// (newcomer15 N15-2): the CRD's default of the Backup's spec.retention.keepLast 7 -> 30, and, with
// target, a target added to the Backup. The Backup never declares retention.
func crdDefaultChanged(t *testing.T, target bool) string {
	t.Helper()
	bs, err := os.ReadFile(fixture("crd-defaults").Desired[0])
	if err != nil {
		t.Fatal(err)
	}
	edits := [][2]string{{"default: 7\n", "default: 30\n"}}
	if target {
		edits = append(edits, [2]string{"  storage:\n    bucket: backups\n", "  - name: archive\n  storage:\n    bucket: backups\n"})
	}
	s := string(bs)
	for _, e := range edits {
		if strings.Count(s, e[0]) != 1 {
			t.Fatalf("fixtures/crd-defaults/desired.yaml: %q is not there once", e[0])
		}
		s = strings.Replace(s, e[0], e[1], 1)
	}
	return writeFile(t, "desired.yaml", s)
}

// A CRD default changed in Git, of a field the custom resource never declared: the Backup holds
// retention {keepLast: 7, keepWeekly: 4}, the default of the CRD as the cluster has it, and the
// pull request makes keepLast's default 30. kapp applies the CRD first; where it then updates the
// Backup, its update omits retention and the API server defaults it anew with the new CRD (as
// commit 125f629 measured on kube-apiserver v1.37.2 with kapp v0.66.0 for a field the Backup
// used to declare). The rules generated before the pull request copy retention from the live
// object: the deploy then keeps 7, and check passed them (exit 0), explain calling the field
// "admission" (newcomer15 N15-2). Where nothing else of the Backup changes, kapp does not update it
// and it keeps 7 whatever the rules say: the rule hides nothing. Measured with kapp v0.66.0 on
// kube-apiserver v1.37.2 (hack/cluster): the Backup keeps 7 after the first, and after the second
// under the rules generated before it; it gets 30 under the rules generated from the pull request's
// manifests, which leave retention out. Oracles: kapp v0.66.0's engine
// (whether it updates the Backup, and what it sends) and k8s.io/apiextensions-apiserver's
// structural defaulting of what it sends with the pull request's CRD.
func TestCRDDefaultChangedForAFieldTheCustomResourceNeverDeclared(t *testing.T) {
	before := fixture("crd-defaults")
	rules, _ := generatedRules(t, before)
	const old = `{"keepLast":7,"keepWeekly":4}`
	for _, tc := range []struct {
		name    string
		target  bool
		class   classify.Class // the Backup's spec.retention
		updated bool           // kapp's deploy updates the Backup under the rules generated before
	}{
		{"the CRD's default and the Backup changed", true, classify.Pending, true},
		{"the CRD's default alone changed", false, classify.Defaulted, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := generator.Inputs{Desired: []string{crdDefaultChanged(t, tc.target)}, Live: before.Live, Namespace: before.Namespace}
			objs := objectsOf(t, in.Desired[0])
			crd, backup := namedObject(t, objs, "backups.crd-defaults.rebasegen.dev"), namedObject(t, objs, "nightly")
			retention := func(obj map[string]any) string { // as JSON: kapp's engine and YAML decode numbers apart
				v, _, _ := unstructured.NestedFieldNoCopy(obj, "spec", "retention")
				bs, err := json.Marshal(v)
				if err != nil {
					t.Fatal(err)
				}
				return string(bs)
			}
			gitWants := retention(kapptest.CRDefaulted(t, crd.Object, backup.Object)) // {keepLast: 30, keepWeekly: 4}
			if gitWants != `{"keepLast":30,"keepWeekly":4}` {
				t.Fatalf("oracle: the pull request's CRD defaults retention to %s", gitWants)
			}
			// the Backup's retention after kapp's deploy under the rule file, under each base: the
			// server's defaulting of what kapp sends where it updates the Backup, else the live value
			after := func(ruleFile string) (vals []string, updated bool) {
				for _, ch := range kapptest.BothBases(t, in.Desired, in.Live[0], in.Namespace, []string{ruleFile}) {
					if ch.NewResource() == nil || ch.NewResource().Kind() != "Backup" {
						continue
					}
					v := old
					if ch.Op() == ctldiff.ChangeOpUpdate {
						v, updated = retention(kapptest.CRDefaulted(t, crd.Object, ch.NewResource().UnstructuredObject())), true
					}
					vals = append(vals, v)
				}
				return vals, updated
			}
			kept, updated := after(rules)
			if updated != tc.updated || !reflect.DeepEqual(kept, []string{old, old}) {
				t.Fatalf("oracle: under the rules generated before, kapp updates the Backup: %v (want %v), retention after the deploy %v (want %v under both bases)", updated, tc.updated, kept, old)
			}

			a, err := generator.Analyze(in)
			if err != nil {
				t.Fatal(err)
			}
			var f classify.Finding
			for _, r := range a.Report.Resources {
				for _, g := range r.Findings {
					if r.Desired.Kind == "Backup" && g.Path.String() == "spec.retention" {
						f = g
					}
				}
			}
			if f.Class != tc.class || !strings.Contains(f.Evidence, "backups.crd-defaults.rebasegen.dev") {
				t.Errorf("explain: the Backup's spec.retention is %q (%s), want %q naming the CRD", f.Class, f.Evidence, tc.class)
			}
			hidden := false
			for _, g := range checked(t, in, rules).Findings(verdict.Gate{}) {
				if g.Resource.Kind == "Backup" && g.Path == "spec.retention" && g.Kind == verdict.KindHidden && g.Fails {
					hidden = true
					if !strings.Contains(g.Evidence, "the default of CRD backups.crd-defaults.rebasegen.dev as the cluster has it") {
						t.Errorf("check: the hidden change's evidence does not say it is the CRD's changed default: %s", g.Evidence)
					}
				}
			}
			if hidden != tc.updated {
				t.Errorf("check: the rule keeping spec.retention hides a change made in Git: %v, want %v", hidden, tc.updated)
			}
			if !tc.updated {
				if !strings.Contains(f.Evidence, "keeps the old default") {
					t.Errorf("explain: the Backup's spec.retention: %q does not say it keeps the old default", f.Evidence)
				}
				return
			}
			if !strings.Contains(f.Evidence, gitWants) || !strings.Contains(f.Evidence, old) {
				t.Errorf("explain: the Backup's spec.retention: %q does not name both defaults", f.Evidence)
			}
			// generated from the pull request's manifests against the capture before the deploy:
			// no rule keeps the old default, and check says to regenerate after this deploy
			regenerated, _ := generatedRules(t, in)
			if got, _ := after(regenerated); !reflect.DeepEqual(got, []string{gitWants, gitWants}) {
				t.Errorf("oracle: under the rules generated from the pull request, retention after the deploy is %v, want %v under both bases", got, gitWants)
			}
			c := checked(t, in, regenerated)
			if fs := c.Findings(verdict.Gate{}); verdict.Failing(fs) {
				t.Errorf("check fails the rules generated from the pull request: %v", fs)
			}
			want := []string{"crd-defaults.rebasegen.dev/Backup crd-defaults/nightly spec.retention: " + gitWants}
			if len(c.Deferred) != 1 || !reflect.DeepEqual(c.Deferred[0].AfterDeploy, want) {
				t.Errorf("check: want one note to regenerate the rules after this deploy naming %v, got %+v", want, c.Deferred)
			}
		})
	}
}
