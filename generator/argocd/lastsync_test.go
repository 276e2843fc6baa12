package argocd_test

import (
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator/argocd"
	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// On an object Argo CD syncs with client-side apply (fixtures/argocd/argo-sidecar), a change made
// in Git is judged against Argo CD's last sync (kubectl.kubernetes.io/last-applied-configuration),
// in explain's classes as in check's findings (newcomer7 N7-5): an env var added in Git was drift
// in explain, "no kapp.k14s.io/original (a first deploy, or an object kapp takes over)"; a
// strategy switched to Recreate left the live rollingUpdate unknown (the server defaulted it for
// the last sync, which declared no strategy, and drops it once the type is Recreate) and the type
// drift in explain. The oracle is the fixture's last applied configuration: it holds neither env
// nor strategy, so neither difference was made on the cluster.
func TestChangeMadeInGitSinceArgoCDsLastSync(t *testing.T) {
	const env = "spec.template.spec.containers[name=reviews].env"
	desired, live := readFixture(t, "argo-sidecar", "desired.yaml"), readFixture(t, "argo-sidecar", "live.yaml")
	applied := live[strings.Index(live, "last-applied-configuration"):]
	applied = applied[:strings.Index(applied, "\n  creationTimestamp")]
	if strings.Contains(applied, `"env"`) || strings.Contains(applied, `"strategy"`) || !strings.Contains(applied, `"image":"nginx:1.25"`) {
		t.Fatal("fixtures/argocd/argo-sidecar: the last applied configuration no longer leaves env and strategy out as the test expects")
	}
	const image = "        image: nginx:1.25\n"
	if !strings.Contains(desired, image) {
		t.Fatal("fixtures/argocd/argo-sidecar: no reviews image as the test expects")
	}
	for _, c := range []struct {
		name, desired string
		paths         []string
	}{
		{"env added", strings.Replace(desired, image, image+"        env:\n        - {name: NEW, value: \"1\"}\n", 1), []string{env}},
		{"Recreate", desired + "  strategy:\n    type: Recreate\n", []string{"spec.strategy.rollingUpdate", "spec.strategy.type"}},
	} {
		a := analyzeFiles(t, c.desired, live, "argo-sidecar")
		found := map[string]classify.Finding{}
		for _, r := range a.Report.Resources {
			for _, f := range r.Findings {
				found[f.Path.String()] = f
			}
		}
		for _, p := range c.paths {
			f, ok := found[p]
			if !ok {
				t.Errorf("%s: explain finds nothing at %s", c.name, p)
				continue
			}
			if f.Class != classify.Pending || !strings.Contains(f.Evidence, "kubectl.kubernetes.io/last-applied-configuration") || strings.Contains(f.Evidence, "kapp.k14s.io/original") {
				t.Errorf("%s: explain: %s %s (%s), want pending, judged against Argo CD's last sync", c.name, p, f.Class, f.Evidence)
			}
		}
		res, v := synthesizeAndVerify(t, a, argocd.Settings{})
		left := map[string]argocd.Left{}
		for _, l := range res.Left {
			left[l.Path] = l
		}
		for _, p := range c.paths {
			if l, ok := left[p]; !ok || l.Kind != verdict.KindPending {
				t.Errorf("%s: check --target argocd: %s %+v, want pending", c.name, p, l)
			}
		}
		if len(res.Left) != len(c.paths) || len(v.OutSync) > 0 {
			t.Errorf("%s: left %+v, residual %+v: want the pending changes alone", c.name, res.Left, v.OutSync)
		}
	}
}
