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
			gitWants := retentionJSON(t, kapptest.CRDefaulted(t, crd.Object, backup.Object)) // {keepLast: 30, keepWeekly: 4}
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
						v, updated = retentionJSON(t, kapptest.CRDefaulted(t, crd.Object, ch.NewResource().UnstructuredObject())), true
					}
					vals = append(vals, v)
				}
				return vals, updated
			}
			kept, updated := after(rules)
			if updated != tc.updated || !reflect.DeepEqual(kept, []string{old, old}) {
				t.Fatalf("oracle: under the rules generated before, kapp updates the Backup: %v (want %v), retention after the deploy %v (want %v under both bases)", updated, tc.updated, kept, old)
			}

			f := retentionFinding(t, in)
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

// After the deploy of the CRD's new default alone (newcomer15's crd-pr1: kapp applied the CRD,
// and did not update the Backup, whose diff showed nothing), the cluster's CRD defaults keepLast
// to 30 and the Backup keeps {keepLast: 7, keepWeekly: 4}: the default of the CRD before. Later
// captures called it "admission" (a mutating webhook). It is the earlier CRD's default the Backup
// keeps until kapp next updates it: Defaulted where nothing else of the Backup changes (kapp
// does not update it), Pending where something does (kapp's update omits retention and the
// server defaults it anew: 30), which the rules generated before, copying the live value, hide.
// Oracles: k8s.io/apiextensions-apiserver's structural defaulting (the live value is the earlier
// CRD's default of the Backup, not the cluster's CRD's) and kapp's engine (whether it updates the
// Backup under those rules).
func TestCRDDefaultKeptFromAnEarlierCRDAfterTheDeploy(t *testing.T) {
	before := fixture("crd-defaults")
	rules, _ := generatedRules(t, before)
	bs, err := os.ReadFile(before.Live[0])
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(bs), "default: 7\n") != 1 {
		t.Fatal("fixtures/crd-defaults/live.yaml: the CRD's keepLast default is not there once")
	}
	// the cluster after the deploy: the CRD's default 30, the Backup unchanged
	live := writeFile(t, "live.yaml", strings.Replace(string(bs), "default: 7\n", "default: 30\n", 1))
	const old, now = `{"keepLast":7,"keepWeekly":4}`, `{"keepLast":30,"keepWeekly":4}`
	earlier := objectsOf(t, before.Desired[0])
	liveBackup := namedObject(t, objectsOf(t, live), "nightly")
	if got := retentionJSON(t, liveBackup.Object); got != old {
		t.Fatalf("fixture: the live Backup's retention is %s", got)
	}
	if got := retentionJSON(t, kapptest.CRDefaulted(t, namedObject(t, earlier, "backups.crd-defaults.rebasegen.dev").Object, namedObject(t, earlier, "nightly").Object)); got != old {
		t.Fatalf("oracle: the earlier CRD defaults retention to %s, want the live %s", got, old)
	}
	for _, tc := range []struct {
		name    string
		target  bool
		class   classify.Class
		updated bool // kapp's deploy updates the Backup under the rules generated before
	}{
		{"nothing else of the Backup changes", false, classify.Defaulted, false},
		{"a target added to the Backup", true, classify.Pending, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := generator.Inputs{Desired: []string{crdDefaultChanged(t, tc.target)}, Live: []string{live}, Namespace: before.Namespace}
			objs := objectsOf(t, in.Desired[0])
			if got := retentionJSON(t, kapptest.CRDefaulted(t, namedObject(t, objs, "backups.crd-defaults.rebasegen.dev").Object, namedObject(t, objs, "nightly").Object)); got != now {
				t.Fatalf("oracle: the cluster's CRD defaults retention to %s, want %s", got, now)
			}
			updated := false
			for _, ch := range kapptest.BothBases(t, in.Desired, live, in.Namespace, []string{rules}) {
				if ch.NewResource() != nil && ch.NewResource().Kind() == "Backup" && ch.Op() == ctldiff.ChangeOpUpdate {
					updated = true
				}
			}
			if updated != tc.updated {
				t.Fatalf("oracle: kapp updates the Backup under the rules generated before: %v, want %v", updated, tc.updated)
			}
			f := retentionFinding(t, in)
			if f.Class != tc.class || !strings.Contains(f.Evidence, "an earlier version of CRD backups.crd-defaults.rebasegen.dev") {
				t.Errorf("explain: the Backup's spec.retention is %q (%s), want %q, an earlier CRD's default", f.Class, f.Evidence, tc.class)
			}
			hidden := false
			for _, g := range checked(t, in, rules).Findings(verdict.Gate{}) {
				if g.Resource.Kind == "Backup" && g.Path == "spec.retention" && g.Kind == verdict.KindHidden && g.Fails {
					hidden = true
				}
			}
			if hidden != tc.updated {
				t.Errorf("check: the rule keeping spec.retention hides a change made in Git: %v, want %v", hidden, tc.updated)
			}
		})
	}
}

// retentionJSON is a Backup's spec.retention as JSON: kapp's engine and YAML decode numbers apart.
func retentionJSON(t *testing.T, obj map[string]any) string {
	t.Helper()
	v, _, _ := unstructured.NestedFieldNoCopy(obj, "spec", "retention")
	bs, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(bs)
}

// retentionFinding is explain's finding on the Backup's spec.retention (zero when none).
func retentionFinding(t *testing.T, in generator.Inputs) classify.Finding {
	t.Helper()
	a, err := generator.Analyze(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range a.Report.Resources {
		for _, g := range r.Findings {
			if r.Desired.Kind == "Backup" && g.Path.String() == "spec.retention" {
				return g
			}
		}
	}
	return classify.Finding{}
}
