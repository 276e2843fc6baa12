package generator_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/generator/yttrender"
)

// intoNsPackage is fixtures/packages/hpa-web's Package CR with its kapp deploy step set to deploy,
// and the HPA's metadata declaring namespace (when not ""), against the live objects captured
// in namespace hpa-replicas.
func intoNsPackage(t *testing.T, deploy, hpaNamespace, n string) generator.Inputs {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "fixtures", "packages", "hpa-web", "package.yml"))
	if err != nil {
		t.Fatal(err)
	}
	cr := strings.Replace(string(data), "- kapp: {}", "- kapp: "+deploy, 1)
	if hpaNamespace != "" {
		hpa := "kind: HorizontalPodAutoscaler\n              metadata:\n"
		cr = strings.Replace(cr, hpa, hpa+"                namespace: "+hpaNamespace+"\n", 1)
	}
	if cr == string(data) {
		t.Fatal("the Package CR was not edited")
	}
	return generator.Inputs{Live: []string{filepath.Join("..", "fixtures", "hpa-replicas", "live.yaml")}, Namespace: n,
		Package: yttrender.Package{CR: writeFile(t, "package.yml", cr), Values: []string{"image=nginx:1.25"}}}
}

// kapp deploys every namespaced object into the Package's intoNs, over the namespace the template
// declares and the install namespace (-n), then maps it through mapNs (kapp v0.66.0
// app/preparation.go placeIntoNamespace): the objects pair where kapp puts them (newcomer8 N8-8).
func TestIntoNsPlacesEveryNamespacedObject(t *testing.T) {
	for name, tc := range map[string]struct {
		deploy, hpaNamespace, n  string
		paired, created, deleted []string
	}{
		"-n given": {deploy: "{intoNs: hpa-replicas}", n: "shop-install",
			paired: []string{"apps/Deployment hpa-replicas/web", "autoscaling/HorizontalPodAutoscaler hpa-replicas/web"}},
		"namespace declared": {deploy: "{intoNs: hpa-replicas}", hpaNamespace: "team-x",
			paired: []string{"apps/Deployment hpa-replicas/web", "autoscaling/HorizontalPodAutoscaler hpa-replicas/web"}},
		"intoNs elsewhere": {deploy: "{intoNs: elsewhere}",
			created: []string{"apps/Deployment elsewhere/web", "autoscaling/HorizontalPodAutoscaler elsewhere/web"},
			deleted: []string{"apps/Deployment hpa-replicas/web", "autoscaling/HorizontalPodAutoscaler hpa-replicas/web"}},
		"mapNs": {deploy: "{mapNs: [shop-install=hpa-replicas, team-x=elsewhere]}", hpaNamespace: "team-x", n: "shop-install",
			paired:  []string{"apps/Deployment hpa-replicas/web"},
			created: []string{"autoscaling/HorizontalPodAutoscaler elsewhere/web"},
			deleted: []string{"autoscaling/HorizontalPodAutoscaler hpa-replicas/web"}},
	} {
		a, err := generator.Analyze(intoNsPackage(t, tc.deploy, tc.hpaNamespace, tc.n))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var paired, created, deleted []string
		for _, p := range a.Set.Pairs {
			paired = append(paired, p.ID.String())
		}
		for _, d := range a.Set.Created {
			created = append(created, pair.Identity{Group: d.GroupKind().Group, Kind: d.Kind, Namespace: d.Namespace, Name: d.Name}.String())
		}
		for _, d := range a.Set.Deleted {
			deleted = append(deleted, pair.Identity{Group: d.GroupKind().Group, Kind: d.Kind, Namespace: d.Namespace, Name: d.Name}.String())
		}
		for what, got := range map[string][2][]string{"paired": {paired, tc.paired}, "created": {created, tc.created}, "deleted": {deleted, tc.deleted}} {
			if strings.Join(got[0], "; ") != strings.Join(got[1], "; ") {
				t.Errorf("%s: %s %q, want %q", name, what, got[0], got[1])
			}
		}
	}
}

// kapp refuses the deploy when mapNs does not map an object's namespace: so does rebasegen,
// naming the document.
func TestMapNsWithoutTheNamespaceFails(t *testing.T) {
	in := intoNsPackage(t, "{mapNs: [shop-install=hpa-replicas]}", "team-x", "shop-install")
	_, err := generator.Analyze(in)
	if err == nil || !strings.Contains(err.Error(), "does not map") || !strings.Contains(err.Error(), "metadata.namespace") || !strings.Contains(err.Error(), "team-x") {
		t.Fatalf("got %v, want kapp's refusal of namespace team-x", err)
	}
}
