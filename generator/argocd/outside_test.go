package argocd_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/argoproj/argo-cd/gitops-engine/v3/pkg/sync"
	"github.com/argoproj/argo-cd/gitops-engine/v3/pkg/utils/kube"
	"github.com/argoproj/argo-cd/v3/util/settings"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/rebasegen/rebasegen/generator/argocd"
	"github.com/rebasegen/rebasegen/generator/load"
)

// argoCDExcludes reports whether Argo CD's own settings manager, reading an argocd-cm holding
// data (util/settings GetResourcesFilter, on a fake API server), excludes group/kind on cluster.
func argoCDExcludes(t *testing.T, data map[string]string, group, kind, cluster string) bool {
	t.Helper()
	meta := func(name string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: name, Namespace: "argocd", Labels: map[string]string{"app.kubernetes.io/part-of": "argocd"}}
	}
	client := fake.NewClientset(&corev1.ConfigMap{ObjectMeta: meta("argocd-cm"), Data: data}, &corev1.Secret{ObjectMeta: meta("argocd-secret")})
	rf, err := settings.NewSettingsManager(context.Background(), client, "argocd").GetResourcesFilter()
	if err != nil {
		t.Fatalf("Argo CD's settings refuse %v: %v", data, err)
	}
	return rf.IsExcludedResource(group, kind, cluster)
}

// A resource argocd-cm's resource.exclusions or resource.inclusions leave out is neither compared
// nor synced by Argo CD: check reported an image bump on it 'Argo CD syncs it', exit 0 (probe8
// P8-5). Such a resource is now refused, naming the key and its line; a filter that leaves none
// of the inputs out changes nothing. Argo CD's own settings code says which it excludes.
func TestArgoCDResourceFilterRefused(t *testing.T) {
	a := analyze(t, "argocd/argo-hpa")
	const cluster = "https://kubernetes.default.svc"
	for _, c := range []struct {
		key, value string
		excluded   bool // the Deployment, on the cluster above
		want       string
	}{
		{"resource.exclusions", "- apiGroups: [apps]\n  kinds: [Deployment]\n  clusters: ['*']\n", true, `argocd-cm.yml:7, document 1, data["resource.exclusions"] excludes it: Argo CD neither compares nor syncs it`},
		{"resource.inclusions", "- apiGroups: [autoscaling]\n  kinds: [HorizontalPodAutoscaler]\n  clusters: ['*']\n", true, `data["resource.inclusions"] does not include it`},
		// the Application's cluster is not among the inputs: a rule for some cluster counts
		{"resource.exclusions", "- apiGroups: [apps]\n  kinds: [Deployment]\n  clusters: [https://staging.example]\n", false, `data["resource.exclusions"] excludes it`},
		{"resource.selectors", "- apiGroups: [apps]\n  kinds: [Deployment]\n  selector: team=payments\n", false, `data["resource.selectors"] keeps Argo CD from watching it`},
		{"resource.exclusions", "- apiGroups: [batch]\n  kinds: [Job]\n", false, ""},
		{"resource.inclusions", "- apiGroups: ['*']\n  kinds: ['*']\n", false, ""},
	} {
		if c.key != "resource.selectors" && argoCDExcludes(t, map[string]string{c.key: c.value}, "apps", "Deployment", cluster) != c.excluded {
			t.Fatalf("%s %q: Argo CD excludes the Deployment: %v, the case says %v", c.key, c.value, !c.excluded, c.excluded)
		}
		cm := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: argocd-cm\n  namespace: argocd\ndata:\n  " + c.key + ": |\n    " +
			strings.ReplaceAll(strings.TrimSuffix(c.value, "\n"), "\n", "\n    ") + "\n"
		file := filepath.Join(t.TempDir(), "argocd-cm.yml")
		if err := os.WriteFile(file, []byte(cm), 0o600); err != nil {
			t.Fatal(err)
		}
		objs, err := load.Paths([]string{file}, load.NewReader(nil))
		if err != nil {
			t.Fatal(err)
		}
		s, err := argocd.Read(objs, load.NewReader(nil))
		if err != nil {
			t.Fatalf("%s: %v", cm, err)
		}
		_, err = s.WithAnnotations(a.Report)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s %q: %v, want no error", c.key, c.value, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "Deployment web")):
			t.Errorf("%s %q: error %v, want one naming the Deployment and holding %q", c.key, c.value, err, c.want)
		}
	}
}

// nsInfo says every kind is namespaced.
type nsInfo struct{}

func (nsInfo) IsNamespaced(schema.GroupKind) (bool, error) { return true, nil }

// A manifest carrying a hook annotation is no resource Argo CD compares (its reconciliation puts
// hooks apart, and drops those naming no hook type it knows), and one whose only hook type is Skip
// is never synced: check reported a change to it 'Argo CD syncs it', exit 0 (probe8 P8-5). They are
// refused, naming the document and the annotation.
func TestArgoCDHookAnnotationRefused(t *testing.T) {
	base, live := readFixture(t, "argo-hpa", "desired.yaml"), readFixture(t, "argo-hpa", "live.yaml")
	s, err := argocd.Read(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ key, value, want string }{
		{"argocd.argoproj.io/hook", "Skip", `annotation argocd.argoproj.io/hook: "Skip": Argo CD's sync skips it`},
		{"argocd.argoproj.io/hook", "PreSync", "Argo CD runs it as a hook, outside its comparison"},
		{"argocd.argoproj.io/hook", "Sync,Skip", "Argo CD runs it as a hook"},
		{"argocd.argoproj.io/hook", "Later", "Argo CD ignores it"},
		{"helm.sh/hook", "pre-install", `annotation helm.sh/hook: "pre-install": Argo CD runs it as a hook`},
		{"helm.sh/hook", "crd-install", ""}, // Helm's mark of a CRD, no hook for Argo CD
	} {
		desired := strings.Replace(base, "metadata:\n  name: web\n", "metadata:\n  name: web\n  annotations:\n    "+c.key+": "+c.value+"\n", 1)
		a := analyzeFiles(t, desired, live, "argo-hpa")
		var dep *unstructured.Unstructured
		for _, r := range a.Report.Resources {
			if r.ID.Kind == "Deployment" {
				d, _, err := r.Objects()
				if err != nil {
					t.Fatal(err)
				}
				dep = d.Unstructured
			}
		}
		// Argo CD's reconciliation compares what it keeps among the targets
		compared := len(sync.Reconcile([]*unstructured.Unstructured{dep}, map[kube.ResourceKey]*unstructured.Unstructured{}, "argo-hpa", nsInfo{}).Target) == 1
		if skip := c.value == "Skip"; compared != (c.want == "" || skip) {
			t.Fatalf("%s: %s: Argo CD compares it: %v", c.key, c.value, compared)
		}
		_, err := s.WithAnnotations(a.Report)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %s: %v, want no error", c.key, c.value, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "desired.yaml: document 1 (line 1): Deployment web")):
			t.Errorf("%s: %s: error %v, want one naming the document and holding %q", c.key, c.value, err, c.want)
		}
	}
}

// A resource's sync options (Prune=false, Replace=true, ServerSideApply=true, Validate=false)
// change how Argo CD syncs it, not what it shows: Argo CD v3.6.1 diffs server-side only when the
// Application asks for it (controller/state.go shouldUseServerSideDiff; gitops-engine's Diff
// falls back to its client-side diff for a resource's ServerSideApply=true without the dry-run
// applier the controller creates only then), and reads the compare options ServerSideDiff and
// IncludeMutationWebhook on the Application alone. A manifest carrying them is judged as one
// without: the image its index pointer ignores is hidden either way, the HPA's replicas masked.
func TestResourceSyncAndCompareOptionsLeaveTheComparison(t *testing.T) {
	base, live := readFixture(t, "argo-hpa", "desired.yaml"), readFixture(t, "argo-hpa", "live.yaml")
	const options = "    argocd.argoproj.io/sync-options: Prune=false,Replace=true,ServerSideApply=true,Validate=false\n" +
		"    argocd.argoproj.io/compare-options: ServerSideDiff=true,IncludeMutationWebhook=true\n"
	annotated := strings.Replace(base, "metadata:\n  name: web\n", "metadata:\n  name: web\n  annotations:\n"+options, 1)
	// as Argo CD applied them: the live object holds them too
	annotatedLive := strings.Replace(live, "kind: Deployment\nmetadata:\n  annotations:\n", "kind: Deployment\nmetadata:\n  annotations:\n"+options, 1)
	if annotated == base || annotatedLive == live {
		t.Fatal("the fixture's Deployment changed: no place for the annotations")
	}
	s := settingsOf(t, "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: argo-hpa, namespace: argocd}\nspec:\n  ignoreDifferences:\n"+
		"  - {group: apps, kind: Deployment, jsonPointers: [/spec/replicas, /spec/template/spec/containers/0/image]}\n")
	verdicts := map[string]string{}
	for name, in := range map[string][2]string{"plain": {base, live}, "annotated": {annotated, annotatedLive}} {
		a := analyzeFiles(t, in[0], in[1], "argo-hpa")
		_, v := synthesizeAndVerify(t, a, s)
		verdicts[name] = fmt.Sprintf("in sync %d/%d, residual %v, hidden %v, masked %v", v.InSync, v.Ghost, v.OutSync, v.Hidden, v.Masked)
		if !strings.Contains(verdicts[name], "containers[name=web].image") || !strings.Contains(verdicts[name], "spec.replicas") {
			t.Errorf("%s: %s: want the image hidden and the replicas masked", name, verdicts[name])
		}
	}
	// where the ignore is written is the same file; only the Deployment's annotations differ
	if verdicts["plain"] != verdicts["annotated"] {
		t.Errorf("annotated: %s\nplain: %s", verdicts["annotated"], verdicts["plain"])
	}
}
