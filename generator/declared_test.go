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

// An apps/v1beta2 manifest against the apps/v1 object the server returns, read from no known
// server version (the live file is rewritten where no server-version.json is): drift, saying
// whether the version is served cannot be judged. From a v1.37 server (Kubernetes 1.16 stopped
// serving apps/v1beta2): unserved, naming the version to use.
func TestConvertedAPIVersionJudgedByServerVersion(t *testing.T) {
	f := declaredFinding(t, "apiVersion", false, func(u *unstructured.Unstructured) { u.SetAPIVersion("apps/v1beta2") })
	served := declaredFindingFrom(t, "v1.37.0", "apiVersion", false, func(u *unstructured.Unstructured) { u.SetAPIVersion("apps/v1beta2") })
	if !served.Unserved || !strings.Contains(served.Evidence, "does not serve Deployment at apps/v1beta2, only at apps/v1:") ||
		!strings.HasSuffix(served.Evidence, "set the manifest's apiVersion to apps/v1") {
		t.Errorf("apiVersion from a v1.37 server: want unserved, naming apps/v1, got %s (unserved %v): %q", served.Class, served.Unserved, served.Evidence)
	}
	if f.Class != classify.Drift || f.Unserved {
		t.Errorf("apiVersion: %s (unserved %v), want drift", f.Class, f.Unserved)
	}
	if !strings.Contains(f.Evidence, "apps/v1, converted from the manifest's apps/v1beta2") || !strings.Contains(f.Evidence, "cannot be judged: the server's version is not known") {
		t.Errorf("apiVersion evidence does not name the conversion and why it is not judged: %q", f.Evidence)
	}
}
