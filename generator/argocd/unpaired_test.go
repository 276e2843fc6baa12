package argocd_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/argoproj/argo-cd/gitops-engine/v3/pkg/sync"
	"github.com/argoproj/argo-cd/gitops-engine/v3/pkg/sync/hook"
	"github.com/argoproj/argo-cd/gitops-engine/v3/pkg/utils/kube"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator/argocd"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// A manifest carrying a hook annotation with no live object was a failing pending create, though
// Argo CD gives it no sync status: its reconciliation puts hooks (and hook types it does not know)
// apart from what it compares, and a Skip one has no status either. It is a warning even under
// --fail-on-create; Helm's crd-install (no hook for Argo CD) and an object without an annotation
// fail with it. Oracle:
// gitops-engine's sync.Reconcile, which keeps among the targets what Argo CD compares, and
// hook.Skip, which the controller leaves without status.
func TestUnpairedHookIsNoPendingCreate(t *testing.T) {
	desired := readFixture(t, "argo-hpa", "desired.yaml")
	live := readFixture(t, "argo-hpa", "live.yaml")
	s := settingsOf(t, "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: argo-hpa, namespace: argocd}\nspec:\n  ignoreDifferences: []\n")
	cases := []struct{ name, annotations string }{
		{"presync", "{argocd.argoproj.io/hook: PreSync}"},
		{"skip", "{argocd.argoproj.io/hook: Skip}"},
		{"later", "{argocd.argoproj.io/hook: Later}"},
		{"helm", "{helm.sh/hook: pre-install}"},
		{"crd", "{helm.sh/hook: crd-install}"},
		{"plain", "{}"},
	}
	for _, c := range cases {
		desired += fmt.Sprintf("\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: %s, annotations: %s}\ndata: {a: b}\n", c.name, c.annotations)
	}
	a := analyzeFiles(t, desired, live, "argo-hpa")
	fs, err := argocd.Unpaired(a.Set, a.Report, s, verdict.Gate{FailOnCreate: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		objs, err := load.Bytes("cm.yaml", fmt.Appendf(nil, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: %s, namespace: argo-hpa, annotations: %s}\n", c.name, c.annotations))
		if err != nil {
			t.Fatal(err)
		}
		u := objs[0].Unstructured
		compared := len(sync.Reconcile([]*unstructured.Unstructured{u}, map[kube.ResourceKey]*unstructured.Unstructured{}, "argo-hpa", nsInfo{}).Target) == 1
		outOfSync := compared && !hook.Skip(u)
		found := false
		for _, f := range fs {
			if f.Resource.Name != c.name {
				continue
			}
			found = true
			if f.Kind != "pending-create" || f.Fails != outOfSync {
				t.Errorf("%s %s: %s, fails %v; Argo CD shows it OutOfSync: %v (%s)", c.name, c.annotations, f.Kind, f.Fails, outOfSync, f.Evidence)
			}
			if !outOfSync && !strings.Contains(f.Evidence, "annotation ") {
				t.Errorf("%s: evidence %q does not name the annotation", c.name, f.Evidence)
			}
		}
		if !found {
			t.Errorf("%s: not named", c.name)
		}
	}
}

// A live object the Application tracks and Git no longer holds requires pruning: a pending
// delete, which --fail-on-delete fails where a sync deletes it. Its compare option
// IgnoreExtraneous leaves the Application Synced (controller/state.go; matched whole in the
// comma-separated list) but a sync with pruning still deletes it. Prune=false, in the object's
// own argocd.argoproj.io/sync-options or else the Application's sync options, keeps every sync
// from deleting it (gitops-engine sync_context.go pruneObject, isPruningDisabled: "ignored (no
// prune)"): it fails on no flag (before, every one of them failed). Prune=confirm deletes once
// confirmed. A live hook has no sync status: not named.
func TestUnpairedIgnoreExtraneous(t *testing.T) {
	desired := readFixture(t, "argo-hpa", "desired.yaml")
	live := readFixture(t, "argo-hpa", "live.yaml")
	s := settingsOf(t, "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: argo-hpa, namespace: argocd}\nspec:\n  ignoreDifferences: []\n")
	cases := []struct {
		name, annotations string
		named, fails      bool
	}{
		{"extraneous", "argocd.argoproj.io/compare-options: IgnoreExtraneous", true, true},
		{"among", "argocd.argoproj.io/compare-options: 'ServerSideDiff=true, IgnoreExtraneous'", true, true},
		{"falsely", "argocd.argoproj.io/compare-options: IgnoreExtraneous=false", true, true},
		{"sync", "argocd.argoproj.io/sync-options: IgnoreExtraneous", true, true},
		{"noprune", "argocd.argoproj.io/sync-options: Prune=false", true, false},
		{"noprunelisted", "argocd.argoproj.io/sync-options: 'Replace=true,Prune=false'", true, false},
		{"confirm", "argocd.argoproj.io/sync-options: Prune=confirm", true, true},
		{"hook", "argocd.argoproj.io/hook: PostSync", false, false},
	}
	for _, c := range cases {
		live += fmt.Sprintf("\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\n  namespace: argo-hpa\n  uid: u-%s\n  annotations:\n    argocd.argoproj.io/tracking-id: 'argo-hpa:/ConfigMap:argo-hpa/%s'\n    %s\ndata: {a: b}\n", c.name, c.name, c.name, c.annotations)
	}
	a := analyzeFiles(t, desired, live, "argo-hpa")
	fs, err := argocd.Unpaired(a.Set, a.Report, s, verdict.Gate{FailOnDelete: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		named := false
		for _, f := range fs {
			if f.Resource.Name != c.name {
				continue
			}
			named = true
			if f.Kind != "pending-delete" || f.Fails != c.fails {
				t.Errorf("%s (%s): %s, fails %v, want fails %v (%s)", c.name, c.annotations, f.Kind, f.Fails, c.fails, f.Evidence)
			}
			if (c.name == "extraneous" || c.name == "among") && !strings.Contains(f.Evidence, "not OutOfSync for it") ||
				!c.fails && !strings.Contains(f.Evidence, "holds Prune=false, so no sync deletes it") {
				t.Errorf("%s: evidence %q does not say what Argo CD does", c.name, f.Evidence)
			}
		}
		if named != c.named {
			t.Errorf("%s (%s): named %v, want %v", c.name, c.annotations, named, c.named)
		}
	}
}

// The Application's sync options hold Prune=false: no sync deletes the objects it tracks, unless
// an object's own annotation says otherwise (gitops-engine reads the annotation first,
// isPruningDisabled), so --fail-on-delete fails only the one whose annotation holds Prune=true.
func TestUnpairedApplicationPruneFalse(t *testing.T) {
	desired := readFixture(t, "argo-hpa", "desired.yaml")
	live := readFixture(t, "argo-hpa", "live.yaml")
	s := settingsOf(t, "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: argo-hpa, namespace: argocd}\nspec:\n  syncPolicy: {syncOptions: [Prune=false]}\n  ignoreDifferences: []\n")
	for _, name := range []string{"kept", "pruned"} {
		ann := ""
		if name == "pruned" {
			ann = "\n    argocd.argoproj.io/sync-options: Prune=true"
		}
		live += fmt.Sprintf("\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\n  namespace: argo-hpa\n  uid: u-%s\n  annotations:\n    argocd.argoproj.io/tracking-id: 'argo-hpa:/ConfigMap:argo-hpa/%s'%s\ndata: {a: b}\n", name, name, name, ann)
	}
	a := analyzeFiles(t, desired, live, "argo-hpa")
	fs, err := argocd.Unpaired(a.Set, a.Report, s, verdict.Gate{FailOnDelete: true})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, f := range fs {
		got[f.Resource.Name] = f.Fails
		if f.Resource.Name == "kept" && !strings.Contains(f.Evidence, "Application argo-hpa's spec.syncPolicy.syncOptions hold Prune=false") {
			t.Errorf("kept: evidence %q does not name the Application's Prune=false", f.Evidence)
		}
	}
	if fails, ok := got["kept"]; !ok || fails {
		t.Errorf("kept: named %v, fails %v: want a warning", ok, fails)
	}
	if fails, ok := got["pruned"]; !ok || !fails {
		t.Errorf("pruned: named %v, fails %v: want it failing under --fail-on-delete", ok, fails)
	}
}

// With a wrong -n (a cluster-scoped object pairs, the namespaced ones do not), each namespaced
// desired object is a pending create hinting "did you mean -n", and the live objects the hints
// name are no pending deletes of their own, as on the kapp target (issue 24).
func TestUnpairedWrongNamespaceNoPendingDeletes(t *testing.T) {
	role := "\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: reader\n%srules: []\n"
	desired := readFixture(t, "argo-hpa", "desired.yaml") + fmt.Sprintf(role, "")
	live := readFixture(t, "argo-hpa", "live.yaml") + fmt.Sprintf(role, "  uid: u-reader\n  annotations:\n    argocd.argoproj.io/tracking-id: 'argo-hpa:rbac.authorization.k8s.io/ClusterRole:/reader'\n")
	s := settingsOf(t, "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: argo-hpa, namespace: argocd}\nspec:\n  ignoreDifferences: []\n")
	a := analyzeFiles(t, desired, live, "wrong")
	fs, err := argocd.Unpaired(a.Set, a.Report, s, verdict.Gate{FailOnDelete: true})
	if err != nil {
		t.Fatal(err)
	}
	creates := 0
	for _, f := range fs {
		switch {
		case f.Kind == "pending-create" && f.Fails && strings.HasSuffix(f.Evidence, "did you mean -n argo-hpa?"):
			creates++
		default:
			t.Errorf("%s %s (fails %v): %s", f.Kind, f.Resource, f.Fails, f.Evidence)
		}
	}
	if creates != 2 {
		t.Errorf("%d pending creates hinting -n argo-hpa, want 2", creates)
	}
}
