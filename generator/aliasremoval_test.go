package generator_test

import (
	"os"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	k8sv1 "k8s.io/kubernetes/pkg/apis/core/v1"

	"github.com/rebasegen/rebasegen/generator"
)

// aliasCopy is a kind-wide copy of the live pod template's deprecated serviceAccount, as generate
// wrote it for fixtures/package-app (a ghost diff: the server sets it from serviceAccountName).
const aliasCopy = `apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- type: copy
  sources: [new, existing]
  paths:
  - [spec, template, spec, serviceAccount]
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}
`

// serverServiceAccountName is what the API server's defaulting of a pod spec (k8s.io/kubernetes
// v1.37.2 pkg/apis/core/v1 SetDefaults_PodSpec, the server's own code) makes its
// serviceAccountName of the template spec of obj, the object kapp applies.
func serverServiceAccountName(t *testing.T, obj *unstructured.Unstructured) string {
	t.Helper()
	spec, _, _ := unstructured.NestedMap(obj.Object, "spec", "template", "spec")
	var in corev1.PodSpec
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(spec, &in); err != nil {
		t.Fatal(err)
	}
	k8sv1.SetDefaults_PodSpec(&in)
	return in.ServiceAccountName
}

// Git removes a Deployment's serviceAccountName (fixtures/package-app's shop-worker); the live
// template holds it and the deprecated alias serviceAccount, which the server sets from it. A
// rule copying the live serviceAccount leaves the object kapp applies without
// serviceAccountName, so kapp's diff shows the removal, but the server's defaulting sets serviceAccountName
// again from the copied alias: the removal never takes effect (newcomer8 N8-6). check passed it
// as a pending change this deploy applies (exit 0).
func TestRemovedServiceAccountNamePutBackByItsAliasIsHidden(t *testing.T) {
	in := fixture("package-app")
	in.Desired = []string{editedFixture(t, in.Desired[0], func(u *unstructured.Unstructured) bool {
		if u.GetKind() == "Deployment" && u.GetName() == "shop-worker" {
			unstructured.RemoveNestedField(u.Object, "spec", "template", "spec", "serviceAccountName")
		}
		return true
	})}
	rules := writeFile(t, "alias.yml", aliasCopy)
	// the oracle: kapp's rebase under the rule, and the server's conversion of what it applies
	desired, live := objectsOf(t, in.Desired[0]), objectsOf(t, in.Live[0])
	d := namedObject(t, desired, "shop-worker")
	d.SetNamespace(in.Namespace)
	applied := rebasedWith(t, rules, d, namedObject(t, live, "shop-worker"))
	if _, declared, _ := unstructured.NestedString(applied.Object, "spec", "template", "spec", "serviceAccountName"); declared {
		t.Fatal("the object kapp applies declares serviceAccountName: not the case this test is about")
	}
	if got := serverServiceAccountName(t, applied); got != "shop" {
		t.Fatalf("the server's conversion of the object kapp applies gives serviceAccountName %q, want shop", got)
	}
	ch, err := generator.Check(in, []string{rules})
	if err != nil {
		t.Fatal(err)
	}
	const want = "shop-worker spec.template.spec.serviceAccountName"
	found := false
	for _, h := range ch.Hidden {
		if h.Resource.Name+" "+h.Path != want {
			continue
		}
		found = true
		if !strings.Contains(h.Rule, "serviceAccount]") || h.At.Key != "rebaseRules[0]" {
			t.Errorf("the hidden removal names %q (%s), not the copy of serviceAccount", h.Rule, h.At.Key)
		}
		if !strings.Contains(h.How, "derives") {
			t.Errorf("the hidden removal says %q, not that the server puts it back", h.How)
		}
	}
	if !found {
		t.Errorf("check does not report %s hidden; hidden %v, pending %d", want, ch.Hidden, len(ch.Pending))
	}
}

// The rules generate writes for fixtures/package-app copy the live serviceAccount only while the
// object kapp rebases declares serviceAccountName (the server sets the alias from it then,
// whatever the copy wrote), so the removal of serviceAccountName made in Git goes through: check
// of the pull request under them reports the removal and the alias pending, nothing hidden; the
// alias was an admission plugin's (a residual ghost diff, newcomer9 N9-9), while the deploy's
// update, lacking both, removes it. generate from the pull request writes the same rules.
func TestGeneratedAliasCopyLetsTheRemovalThrough(t *testing.T) {
	in := fixture("package-app")
	rules, g := generatedRules(t, in)
	if v := g.Verification; !v.OK() {
		t.Fatalf("verification of the rules generated from the capture failed: %s; hidden %v", v.Summary(), v.Hidden)
	}
	pr := in
	pr.Desired = []string{editedFixture(t, in.Desired[0], func(u *unstructured.Unstructured) bool {
		if u.GetKind() == "Deployment" && u.GetName() == "shop-worker" {
			unstructured.RemoveNestedField(u.Object, "spec", "template", "spec", "serviceAccountName")
		}
		return true
	})}
	// the oracle: what kapp applies under the generated rules, as the server's defaulting makes it
	desired, live := objectsOf(t, pr.Desired[0]), objectsOf(t, pr.Live[0])
	for name, want := range map[string]string{"shop-worker": "", "shop-api": "shop"} {
		d := namedObject(t, desired, name)
		d.SetNamespace(in.Namespace)
		if got := serverServiceAccountName(t, rebasedWith(t, rules, d, namedObject(t, live, name))); got != want {
			t.Errorf("%s: the server makes serviceAccountName %q of what kapp applies under the generated rules, want %q", name, got, want)
		}
	}
	ch, err := generator.Check(pr, []string{rules})
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Hidden) > 0 || len(ch.Residual) > 0 {
		t.Errorf("check of the pull request: hidden %v, residual %v", ch.Hidden, ch.Residual)
	}
	pending := map[string]bool{}
	for _, r := range ch.Pending {
		pending[r.Resource.Name+" "+r.Finding.Path.String()] = true
	}
	for _, f := range []string{"serviceAccountName", "serviceAccount"} {
		if !pending["shop-worker spec.template.spec."+f] {
			t.Errorf("check does not report shop-worker spec.template.spec.%s pending; pending %v", f, pending)
		}
	}
	again, g2 := generatedRules(t, pr)
	if v := g2.Verification; !v.OK() {
		t.Fatalf("verification of the rules generated from the pull request failed: %s; hidden %v", v.Summary(), v.Hidden)
	}
	if a, b := rulesBody(t, rules), rulesBody(t, again); a != b {
		t.Errorf("generate from the pull request writes other rules:\n%s\nthan from the capture:\n%s", b, a)
	}
}

// rulesBody is a generated rules file without its header comment.
func rulesBody(t *testing.T, file string) string {
	t.Helper()
	bs, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	_, body, _ := strings.Cut(string(bs), "\napiVersion:")
	return body
}
