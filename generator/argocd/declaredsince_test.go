package argocd_test

import (
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator/argocd"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// Changes made in Git that Argo CD's last sync (kubectl.kubernetes.io/last-applied-configuration
// on fixtures/argocd/argo-cabundle) did not hold are pending, as the kapp target reports them
// against kapp.k14s.io/original (newcomer6 N6-8): a webhook added in Git (old code: the resource
// was taken for ghost-only and its webhooks list failed as a residual ghost diff of class
// defaulted, from a default in the other webhook) and a value declared in Git where the live
// object holds the server's default (old code: drift). A value edited on the cluster stays drift.
func TestDeclaredInGitSinceArgoCDsLastSync(t *testing.T) {
	const (
		hook    = "- name: mutate.argo-cabundle.rebasegen.dev\n"
		timeout = "webhooks[name=mutate.argo-cabundle.rebasegen.dev].timeoutSeconds"
	)
	desired, live := readFixture(t, "argo-cabundle", "desired.yaml"), readFixture(t, "argo-cabundle", "live.yaml")
	i := strings.Index(desired, hook)
	end := strings.Index(desired[i:], "\n---\n")
	if i < 0 || end < 0 {
		t.Fatal("fixtures/argocd/argo-cabundle no longer declares the mutating webhook as the test expects")
	}
	second := strings.Replace(desired[i:i+end+1], "mutate.argo-cabundle", "mutate2.argo-cabundle", 1)
	added := desired[:i+end+1] + second + desired[i+end+1:]
	left := func(desired, live string, path string) (argocd.Left, argocd.Verification) {
		t.Helper()
		a := analyzeFiles(t, desired, live, "argo-cabundle")
		res, v := synthesizeAndVerify(t, a, argocd.Settings{})
		for _, l := range res.Left {
			if l.Path == path && l.Resource.Kind == "MutatingWebhookConfiguration" {
				return l, v
			}
		}
		t.Errorf("nothing left at %s: %+v", path, res.Left)
		return argocd.Left{}, v
	}
	l, v := left(added, live, "webhooks")
	if l.Kind != verdict.KindPending || !strings.Contains(l.Reason, "webhooks[name=mutate2.argo-cabundle.rebasegen.dev]") {
		t.Errorf("a webhook added in Git: %+v, want pending naming the new webhook", l)
	}
	for _, p := range v.OutSync {
		if p.Resource.Kind == "MutatingWebhookConfiguration" {
			t.Errorf("a webhook added in Git: residual %+v", p)
		}
	}

	declared := strings.Replace(desired, "    resources: [configmaps]\n---\napiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration",
		"    resources: [configmaps]\n  timeoutSeconds: 7\n---\napiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration", 1)
	if declared == desired {
		t.Fatal("fixtures/argocd/argo-cabundle: no mutating webhook's rules before the validating webhook configuration")
	}
	if l, _ := left(declared, live, timeout); l.Kind != verdict.KindPending {
		t.Errorf("timeoutSeconds: 7 declared in Git (live: the default 10): %+v, want pending", l)
	}
	// Argo CD's last sync declared 5, the cluster holds 10: changed on the cluster since
	synced := strings.Replace(live, `"name":"mutate.argo-cabundle.rebasegen.dev",`, `"name":"mutate.argo-cabundle.rebasegen.dev","timeoutSeconds":5,`, 1)
	if synced == live {
		t.Fatal("fixtures/argocd/argo-cabundle's last applied configuration no longer names the mutating webhook as the test expects")
	}
	if l, _ := left(declared, synced, timeout); l.Kind != verdict.KindDrift {
		t.Errorf("timeoutSeconds: 7 declared in Git, 5 last synced, 10 live: %+v, want drift", l)
	}
}
