package argocd_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/argocd"
	"github.com/rebasegen/rebasegen/internal/crddoc"
)

// hiddenPaths are the paths of v's hidden findings.
func hiddenPaths(v argocd.Verification) []string {
	var out []string
	for _, p := range v.Hidden {
		out = append(out, p.Path)
	}
	return out
}

// managedFieldsManagers hides every change made in Git to a field the manager owns, inside a
// keyed list too (probe7 D1): Argo CD's controller types the objects with the cluster's schema, so
// argocd-controller's f:containers.k:{"name":"web"}.f:image meets the image bump and Argo CD
// removes it from both sides (Synced). Typed without a schema (every list atomic) the bump was
// shown and check exited 0. Both forms: the Application's entry and argocd-cm's.
func TestManagedFieldsManagersHideKeyedChange(t *testing.T) {
	desired := strings.Replace(readFixture(t, "argo-hpa", "desired.yaml"), "image: nginx:1.25", "image: nginx:1.27", 1)
	a := analyzeFiles(t, desired, readFixture(t, "argo-hpa", "live.yaml"), "argo-hpa")
	const image = "spec.template.spec.containers[name=web].image"
	for name, doc := range map[string]string{
		"application": "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: argo-hpa, namespace: argocd}\nspec:\n  ignoreDifferences:\n" +
			"  - {group: apps, kind: Deployment, jsonPointers: [/spec/replicas], managedFieldsManagers: [argocd-controller]}\n",
		"argocd-cm": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: argocd-cm, namespace: argocd, labels: {app.kubernetes.io/part-of: argocd}}\ndata:\n" +
			"  resource.customizations.ignoreDifferences.apps_Deployment: |\n    managedFieldsManagers: [argocd-controller]\n",
	} {
		t.Run(name, func(t *testing.T) {
			_, v := synthesizeAndVerify(t, a, settingsOf(t, doc))
			if !slices.Contains(hiddenPaths(v), image) || v.OK() {
				t.Errorf("hidden %v (ok %v): want %s hidden", hiddenPaths(v), v.OK(), image)
			}
		})
	}
}

// A custom resource is typed with its CRD's schema, as the API server publishes it: a keyed list
// item's field the manager owns is hidden; without the CRD, rebasegen has no schema to type it
// with as Argo CD would, and refuses to judge the entry, naming it and --crd.
func TestManagedFieldsManagersCustomResource(t *testing.T) {
	dir := t.TempDir()
	crd := filepath.Join(dir, "crd.yaml")
	if err := os.WriteFile(crd, []byte(crddoc.Namespaced("example.com", "Widget", "type: object\nproperties:\n  parts: "+crddoc.KeyedByName("image: {type: string}")+"\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	object := func(image, meta string) string {
		return "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n  namespace: demo\n" + meta +
			"spec:\n  parts:\n  - {name: a, image: a:1}\n  - {name: b, image: " + image + "}\n"
	}
	live := object("b:1", `  uid: 0a9f1c2e-5b4d-4e0f-9a41-7f3c2b1d8e60
  resourceVersion: "7"
  managedFields:
  - manager: argocd-controller
    operation: Update
    apiVersion: example.com/v1
    fieldsType: FieldsV1
    fieldsV1: {"f:spec": {"f:parts": {"k:{\"name\":\"b\"}": {".": {}, "f:name": {}, "f:image": {}}}}}
`)
	d, l := filepath.Join(dir, "desired.yaml"), filepath.Join(dir, "live.yaml")
	for f, text := range map[string]string{d: object("b:2", ""), l: live} {
		if err := os.WriteFile(f, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s := settingsOf(t, "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: shop, namespace: argocd}\nspec:\n  ignoreDifferences:\n"+
		"  - {group: example.com, kind: Widget, managedFieldsManagers: [argocd-controller]}\n")

	a, err := generator.Analyze(generator.Inputs{Desired: []string{d}, Live: []string{l}, CRDs: []string{crd}, Namespace: "demo"})
	if err != nil {
		t.Fatal(err)
	}
	_, v := synthesizeAndVerify(t, a, s)
	// a custom resource's paths are rendered by index
	if got := hiddenPaths(v); !slices.Contains(got, "spec.parts[1].image") {
		t.Errorf("hidden %v: want spec.parts[1].image (name b)", got)
	}

	a, err = generator.Analyze(generator.Inputs{Desired: []string{d}, Live: []string{l}, Namespace: "demo"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := argocd.Synthesize(a.Report, argocd.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = argocd.Verify(a.Report, s, res.Ghost)
	if err == nil || !strings.Contains(err.Error(), "managedFieldsManagers argocd-controller") || !strings.Contains(err.Error(), "--crd") ||
		!strings.Contains(err.Error(), "rules.yml:") {
		t.Errorf("without the CRD: error %v, want one naming the entry, the manager and --crd", err)
	}
}
