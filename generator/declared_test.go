package generator_test

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/synth"
)

// The adopt-kubectl-apply Deployment as captured, with the manifest edited by edit (and the live
// object exported without managedFields when bare): the finding for path.
func declaredFinding(t *testing.T, path string, bare bool, edit func(*unstructured.Unstructured)) classify.Finding {
	t.Helper()
	return declaredFindingFrom(t, "", path, bare, edit)
}

// declaredFindingFrom is declaredFinding with the server's version given (--server-version).
func declaredFindingFrom(t *testing.T, server, path string, bare bool, edit func(*unstructured.Unstructured)) classify.Finding {
	t.Helper()
	in := fixture("adopt-kubectl-apply")
	in.ServerVersion = server
	rewrite := func(file string, f func(*unstructured.Unstructured)) string {
		return editedFixture(t, file, func(u *unstructured.Unstructured) bool {
			if u.GetKind() == "Deployment" {
				f(u)
			}
			return u.GetKind() == "Deployment"
		})
	}
	in.Live = []string{rewrite(in.Live[0], func(u *unstructured.Unstructured) {
		if bare {
			u.SetManagedFields(nil)
		}
	})}
	in.Desired = []string{rewrite(in.Desired[0], edit)}
	g, err := generator.Generate(in, synth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range g.Report.Resources {
		for _, f := range r.Findings {
			if f.Path.String() == path {
				return f
			}
		}
	}
	t.Fatalf("no finding for %s", path)
	return classify.Finding{}
}

// A manifest that declares the Deployment controller's revision annotation: the controller
// rewrites it (managedFields say so; without them, rulesets/filled.yaml does), so it is not drift
// but a controller's field, with a warning that names the controller.
func TestDeclaredRevisionAnnotationIsTheControllers(t *testing.T) {
	const path = `metadata.annotations["deployment.kubernetes.io/revision"]`
	for _, bare := range []bool{false, true} {
		f := declaredFinding(t, path, bare, func(u *unstructured.Unstructured) {
			a := u.GetAnnotations()
			a["deployment.kubernetes.io/revision"] = "7" // the live object holds "2"
			u.SetAnnotations(a)
		})
		if f.Class != classify.Controller || f.Owner != "kube-controller-manager" {
			t.Errorf("without managedFields %v: %s owner %q (%s), want controller:kube-controller-manager", bare, f.Class, f.Owner, f.Evidence)
		}
		if !strings.Contains(f.Warning, "kube-controller-manager rewrites it") {
			t.Errorf("without managedFields %v: warning %q does not say kube-controller-manager rewrites the declared field", bare, f.Warning)
		}
	}
}

// An apps/v1beta2 manifest against the apps/v1 object the server returns. From a v1.15 server
// (rulesets/served has no data for it; Kubernetes 1.16 stopped serving apps/v1beta2): drift,
// saying whether the version is served cannot be judged. From a v1.37 server: unserved, naming
// the version to use. From no known server version (the live file is rewritten where no
// server-version.json is): unserved too, as no server version rebasegen supports (v1.33 and
// later) serves it; from a v1.16 server (the release that stopped serving it) and one newer than
// rulesets/served's data: unserved (issue 23, probe17 P17-3: drift, not judged, but on v1.37).
func TestConvertedAPIVersionJudgedByServerVersion(t *testing.T) {
	v1beta2 := func(u *unstructured.Unstructured) { u.SetAPIVersion("apps/v1beta2") }
	f := declaredFindingFrom(t, "v1.15.12", "apiVersion", false, v1beta2)
	served := declaredFindingFrom(t, "v1.37.0", "apiVersion", false, v1beta2)
	if !served.Unserved || !strings.Contains(served.Evidence, "does not serve Deployment at apps/v1beta2, only at apps/v1:") ||
		!strings.HasSuffix(served.Evidence, "set the manifest's apiVersion to apps/v1") {
		t.Errorf("apiVersion from a v1.37 server: want unserved, naming apps/v1, got %s (unserved %v): %q", served.Class, served.Unserved, served.Evidence)
	}
	if f.Class != classify.Drift || f.Unserved || !f.ServedUnknown {
		t.Errorf("apiVersion from a v1.15 server: %s (unserved %v, not judged %v), want drift not judged", f.Class, f.Unserved, f.ServedUnknown)
	}
	if !strings.Contains(f.Evidence, "apps/v1, converted from the manifest's apps/v1beta2") || !strings.Contains(f.Evidence, "cannot be judged: rebasegen knows what kube-apiserver serves of v1.37 only (rulesets/served), not of v1.15.12") {
		t.Errorf("apiVersion evidence does not name the conversion and why it is not judged: %q", f.Evidence)
	}
	for _, v := range []string{"v1.16.0", "v1.38.1"} { // the release that stopped serving it; one rulesets/ has no data for
		f := declaredFindingFrom(t, v, "apiVersion", false, v1beta2)
		if !f.Unserved || !strings.Contains(f.Evidence, "kube-apiserver "+v+" (--server-version) does not serve Deployment at apps/v1beta2, which Kubernetes stopped serving in v1.16") {
			t.Errorf("apiVersion from a %s server: want unserved, removed in v1.16, got %s (unserved %v): %q", v, f.Class, f.Unserved, f.Evidence)
		}
	}
	unknown := declaredFinding(t, "apiVersion", false, v1beta2)
	if !unknown.Unserved || !strings.Contains(unknown.Evidence, "the server's version is not known") ||
		!strings.Contains(unknown.Evidence, "does not serve Deployment at apps/v1beta2, which Kubernetes stopped serving in v1.16 (Deprecated API Migration Guide: https://kubernetes.io/docs/reference/using-api/deprecation-guide/#deployment-v116") {
		t.Errorf("apiVersion from no known server version: want unserved, removed in v1.16, got %s (unserved %v): %q", unknown.Class, unknown.Unserved, unknown.Evidence)
	}
}
