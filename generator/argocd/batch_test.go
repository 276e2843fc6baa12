package argocd

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/load"
)

// withEnv is fixtures/argocd/argo-hpa's desired and live objects with n env entries in the web
// container of both (probe7 D5's scenario).
func withEnv(t *testing.T, n int) (desired, live string) {
	t.Helper()
	read := func(f string) string {
		b, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "argocd", "argo-hpa", f))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	var env strings.Builder
	env.WriteString("        env:\n")
	for i := range n {
		fmt.Fprintf(&env, "        - name: E%d\n          value: \"v%d\"\n", i, i)
	}
	desired = strings.Replace(read("desired.yaml"), "        image: nginx:1.25\n", "        image: nginx:1.25\n"+env.String(), 1)
	live = strings.Replace(read("live.yaml"), "      - image: nginx:1.25\n", "      - image: nginx:1.25\n"+env.String(), 1)
	if desired == read("desired.yaml") || live == read("live.yaml") {
		t.Fatal("the fixture changed: no place for the env entries")
	}
	return desired, live
}

// verifyCalls is how many comparisons Verify makes on argo-hpa with n env entries under an
// Application ignoring /spec/replicas, and its verdict.
func verifyCalls(t *testing.T, n int, rules string) (int64, Verification) {
	t.Helper()
	desired, live := withEnv(t, n)
	dir := t.TempDir()
	d, l := filepath.Join(dir, "desired.yaml"), filepath.Join(dir, "live.yaml")
	for f, text := range map[string]string{d: desired, l: live} {
		if err := os.WriteFile(f, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	a, err := generator.Analyze(generator.Inputs{Desired: []string{d}, Live: []string{l}, Namespace: "argo-hpa"})
	if err != nil {
		t.Fatal(err)
	}
	objs, err := load.Bytes("rules.yml", []byte(rules))
	if err != nil {
		t.Fatal(err)
	}
	s, err := Read(objs, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Synthesize(a.Report, s)
	if err != nil {
		t.Fatal(err)
	}
	before := diffs.Load()
	v, err := Verify(a.Report, s, res.Ghost)
	if err != nil {
		t.Fatal(err)
	}
	return diffs.Load() - before, v
}

// The mutation check changes the values of a resource together where the changes cannot meet
// (probe7 D5): each value changed alone made one comparison of the whole object per value, time
// quadratic in the values (N=200 env entries 33 s, N=500 221 s). The comparisons Verify makes must
// not grow with the number of values when nothing is hidden, and the verdict is the one the
// values changed alone give: every value changed, none hidden; and with an ignore hiding the env
// list, each entry hidden.
func TestMutationCheckBatches(t *testing.T) {
	const replicas = "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: argo-hpa, namespace: argocd}\nspec:\n  ignoreDifferences:\n" +
		"  - {group: apps, kind: Deployment, jsonPointers: [/spec/replicas]}\n"
	small, vs := verifyCalls(t, 10, replicas)
	large, vl := verifyCalls(t, 80, replicas)
	t.Logf("comparisons: %d for 10 env entries, %d for 80", small, large)
	if large > small+small/2 {
		t.Errorf("comparisons: %d for 10 env entries, %d for 80: grows with the values", small, large)
	}
	if len(vs.Hidden)+len(vl.Hidden) != 0 || vl.Mutation-vs.Mutation != 2*(80-10) {
		t.Errorf("hidden %v %v, values changed %d and %d: want none hidden, 140 more values changed", vs.Hidden, vl.Hidden, vs.Mutation, vl.Mutation)
	}
	// an ignore of the env list: each entry's values hidden, found as when changed alone
	const env = "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: argo-hpa, namespace: argocd}\nspec:\n  ignoreDifferences:\n" +
		"  - {group: apps, kind: Deployment, jsonPointers: [/spec/replicas, /spec/template/spec/containers/0/env]}\n"
	_, v := verifyCalls(t, 10, env)
	hidden := map[string]bool{}
	for _, h := range v.Hidden {
		hidden[h.Path] = true
	}
	for i := range 10 {
		for _, f := range []string{"name", "value"} {
			if p := fmt.Sprintf("spec.template.spec.containers[name=web].env[name=E%d].%s", i, f); !hidden[p] {
				t.Errorf("%s not hidden (hidden: %v)", p, v.Hidden)
			}
		}
	}
}

// The changes are made together under every kind of ignore (issue 28): the values under a jq
// expression, which may select by any value, and the removals under a managedFieldsManagers entry
// were each made alone, one comparison of the whole object per declared value. A batch
// is settled where the ignores take from it what they take from the manifest; the comparisons
// must not grow with the values, and the verdict is the one the values changed alone give: the
// env values the jq expression selects by name, hidden; none under the managers, which own none.
func TestMutationCheckBatchesEveryIgnore(t *testing.T) {
	for name, entry := range map[string]string{
		"jq":       `jqPathExpressions: ['.spec.template.spec.containers[] | select(.name == "web") | .env[] | select(.name | startswith("E")) | .value']`,
		"managers": "managedFieldsManagers: [kube-controller-manager]",
		"pointer":  "jsonPointers: [/spec/template/spec/containers/0/resources]",
	} {
		t.Run(name, func(t *testing.T) {
			rules := "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: argo-hpa, namespace: argocd}\nspec:\n  ignoreDifferences:\n" +
				"  - {group: apps, kind: Deployment, jsonPointers: [/spec/replicas]}\n  - group: apps\n    kind: Deployment\n    " + entry + "\n"
			small, vs := verifyCalls(t, 10, rules)
			large, vl := verifyCalls(t, 80, rules)
			t.Logf("comparisons: %d for 10 env entries, %d for 80; hidden %d and %d", small, large, len(vs.Hidden), len(vl.Hidden))
			if large > small+small/2 {
				t.Errorf("comparisons: %d for 10 env entries, %d for 80: grows with the values", small, large)
			}
			hidden := map[string]bool{}
			for _, h := range vl.Hidden {
				hidden[h.Path] = true
			}
			for i := range 80 {
				p := fmt.Sprintf("spec.template.spec.containers[name=web].env[name=E%d].value", i)
				if hidden[p] != (name == "jq") {
					t.Errorf("%s hidden %v, want %v", p, hidden[p], name == "jq")
				}
			}
		})
	}
}

// Removals at or around a field a JSON pointer ignores are made together with the other removals
// of their depth, as removals under jq and managedFieldsManagers entries are (issue 28): each was
// made alone, one comparison of the whole object. A pointer at a field the manifest leaves to the
// server (terminationMessagePath) leaves the removals of its parents unjudged by the values', so
// each cost one comparison more than the same rules without it; made together they cost none, and
// no removal is hidden either way (a removal of a parent shows in Argo CD's diff).
func TestRemovalsAroundAPointerBatch(t *testing.T) {
	app := "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: argo-hpa, namespace: argocd}\nspec:\n  ignoreDifferences:\n" +
		"  - {group: apps, kind: Deployment, jsonPointers: [/spec/replicas%s]}\n"
	without, vw := verifyCalls(t, 10, fmt.Sprintf(app, ""))
	with, v := verifyCalls(t, 10, fmt.Sprintf(app, ", /spec/template/spec/containers/0/terminationMessagePath"))
	t.Logf("comparisons: %d without the pointer, %d with it", without, with)
	if with > without+1 {
		t.Errorf("comparisons: %d without the pointer at terminationMessagePath, %d with it: its parents' removals made alone", without, with)
	}
	if len(v.Hidden) != len(vw.Hidden) || len(v.Hidden) != 0 {
		t.Errorf("hidden %v with the pointer, %v without: want none", v.Hidden, vw.Hidden)
	}
}
