package argocd_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/argocd"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// A change made in Git to a field a controller owns is no controller's ghost on the Argo CD
// target either (probe11 P11-1): the controller's exemption holds for the value Argo CD last
// applied (kubectl.kubernetes.io/last-applied-configuration), not a new one from Git. An image
// bump on a container image a controller the --ruleset names owns (beside the replicas ignore), and a replica count changed
// in Git where kube-controller-manager owns the field, were masked under ignores hiding them:
// check --target argocd passed while Argo CD showed the Deployment Synced and never applied
// them. The oracles: the fixture's last applied configuration holds the old values, and Argo
// CD's StateDiff shows the Deployment OutOfSync without the ignore and Synced under it.
func TestChangeMadeInGitToAControllersFieldIsHidden(t *testing.T) {
	desired, live := readFixture(t, "argo-hpa", "desired.yaml"), readFixture(t, "argo-hpa", "live.yaml")
	const image, imageField = "image: nginx:1.25", "                f:image: {}\n"
	if !strings.Contains(live, `"replicas":1,`) || !strings.Contains(live, `"image":"nginx:1.25"`) || strings.Count(live, imageField) != 1 ||
		!strings.Contains(desired, "replicas: 1\n") || !strings.Contains(desired, image) {
		t.Fatal("fixtures/argocd/argo-hpa no longer holds replicas 1 and nginx:1.25 in the manifest and the last sync, as the test expects")
	}
	// the image is owned by a controller setting images on the cluster, at the value Argo CD applied
	imageUpdater := strings.Replace(strings.Replace(live, imageField, "", 1), "  managedFields:\n", "  managedFields:\n"+
		"  - {apiVersion: apps/v1, fieldsType: FieldsV1, manager: image-updater, operation: Update, time: \"2026-11-26T08:00:00Z\",\n"+
		"     fieldsV1: {f:spec: {f:template: {f:spec: {f:containers: {'k:{\"name\":\"web\"}': {.: {}, f:image: {}}}}}}}}\n", 1)
	ruleset := filepath.Join(t.TempDir(), "rs.yaml")
	if err := os.WriteFile(ruleset, []byte("controllers:\n- name: image-updater\n  source: a controller setting container images\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, desired, live, path, owner, ignore string
		rulesets                                 []string
	}{
		{"replicas", strings.Replace(desired, "replicas: 1\n", "replicas: 3\n", 1), live, "spec.replicas", "kube-controller-manager", "jsonPointers: [/spec/replicas]", nil},
		{"image", strings.Replace(desired, image, "image: nginx:1.27", 1), imageUpdater, "spec.template.spec.containers[name=web].image", "image-updater",
			`jsonPointers: [/spec/replicas], jqPathExpressions: ['.spec.template.spec.containers[] | select(.name == "web") | .image']`, []string{ruleset}},
	} {
		dir := t.TempDir()
		d, l := filepath.Join(dir, "desired.yaml"), filepath.Join(dir, "live.yaml")
		if err := os.WriteFile(d, []byte(c.desired), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(l, []byte(c.live), 0o600); err != nil {
			t.Fatal(err)
		}
		a, err := generator.Analyze(generator.Inputs{Desired: []string{d}, Live: []string{l}, Namespace: "argo-hpa", Rulesets: c.rulesets})
		if err != nil {
			t.Fatal(err)
		}
		s := settingsOf(t, "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: argo-hpa, namespace: argocd}\nspec:\n  ignoreDifferences:\n"+
			"  - {group: apps, kind: Deployment, "+c.ignore+"}\n")
		for _, r := range a.Report.Resources {
			if r.ID.Kind != "Deployment" {
				continue
			}
			dobj, lobj, err := r.Objects()
			if err != nil {
				t.Fatal(err)
			}
			plain, err := argocd.Diff(dobj.Unstructured, lobj.Unstructured, argocd.Settings{})
			if err != nil {
				t.Fatal(err)
			}
			under, err := argocd.Diff(dobj.Unstructured, lobj.Unstructured, s.For(lobj.Unstructured))
			if err != nil {
				t.Fatal(err)
			}
			if !plain.Modified || under.Modified {
				t.Fatalf("%s: Argo CD: OutOfSync without the ignore %v, under it %v: want OutOfSync, then Synced (the ignore hides the change)", c.name, plain.Modified, under.Modified)
			}
		}
		res, v := synthesizeAndVerify(t, a, s)
		for _, m := range v.Masked {
			if m.Path == c.path {
				t.Errorf("%s: %s masked where %s owns it: the manifest's value is not the one Argo CD last applied", c.name, c.path, c.owner)
			}
		}
		var hidden []verdict.Finding
		for _, f := range argocd.Findings(res.Left, v, nil, "") {
			if f.Path == c.path {
				hidden = append(hidden, f)
			}
		}
		if len(hidden) != 1 || hidden[0].Kind != verdict.KindHidden || !hidden[0].Fails ||
			!strings.Contains(hidden[0].Evidence, c.owner+" owns the field, which exempts only the value Argo CD last applied") {
			t.Errorf("%s: findings on %s %+v, want one, hidden, failing, naming %s's exemption", c.name, c.path, hidden, c.owner)
		}
		if v.OK() {
			t.Errorf("%s: the verification passes while the ignore hides the change", c.name)
		}
	}
}
