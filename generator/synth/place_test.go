package synth

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/internal/kappmatch"
)

func placedDeployment(ns, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetAPIVersion("apps/v1")
	u.SetKind("Deployment")
	u.SetNamespace(ns)
	u.SetName(name)
	return u
}

// matches is what kapp's own matcher code selects among objs with the rule's matchers.
func matches(t *testing.T, ms []Matcher, objs ...*unstructured.Unstructured) []string {
	t.Helper()
	kms, err := KappMatchers(ms)
	if err != nil {
		t.Fatal(err)
	}
	m, ok := kappmatch.New(kms)
	if !ok {
		t.Fatalf("kapp cannot build %+v", ms)
	}
	var out []string
	for _, o := range objs {
		if m.MatchesObject(o) {
			out = append(out, o.GetNamespace()+"/"+o.GetName())
		}
	}
	return out
}

// A controller's rule for the one Deployment a package renders without a namespace selects it in
// any namespace, and never the Deployment whose namespace the package sets.
func TestPlaceFollowsTheInstallNamespace(t *testing.T) {
	web := pair.Identity{Group: "apps", Kind: "Deployment", Namespace: "captured", Name: "web"}
	rule := Rule{Sources: ControllerWins(), Paths: [][]string{{"spec", "replicas"}}, Matchers: []Matcher{nameOf(web)}}
	p := Placement{Namespace: "captured", Desired: []*unstructured.Unstructured{placedDeployment("captured", "web"), placedDeployment("monitoring", "exporter")}, Placed: []bool{true, false}}
	out, pinned := Place([]Rule{rule}, p)
	if len(pinned) != 0 {
		t.Fatalf("pinned %v", pinned)
	}
	got := matches(t, out[0].Matchers, placedDeployment("shop", "web"), placedDeployment("monitoring", "exporter"), placedDeployment("captured", "web"))
	if want := []string{"shop/web", "captured/web"}; !slices.Equal(got, want) {
		t.Errorf("the rule matches %v, want %v (matchers %+v)", got, want, out[0].Matchers)
	}
}

// Where the package renders another Deployment without a namespace that the rule must not match,
// no matcher of kapp's selects web alone in any namespace: the rule keeps the namespace, and web
// is reported.
func TestPlacePinsWhatKappCannotMatchByNameAlone(t *testing.T) {
	web := pair.Identity{Group: "apps", Kind: "Deployment", Namespace: "captured", Name: "web"}
	rule := Rule{Sources: ControllerWins(), Paths: [][]string{{"spec", "replicas"}}, Matchers: []Matcher{nameOf(web)}}
	p := Placement{Namespace: "captured", Desired: []*unstructured.Unstructured{placedDeployment("captured", "web"), placedDeployment("captured", "worker")}, Placed: []bool{true, true}}
	out, pinned := Place([]Rule{rule}, p)
	if !slices.Equal(pinned, []pair.Identity{web}) {
		t.Errorf("pinned %v, want web", pinned)
	}
	if got := matches(t, out[0].Matchers, placedDeployment("captured", "web"), placedDeployment("captured", "worker")); !slices.Equal(got, []string{"captured/web"}) {
		t.Errorf("the rule changed: matches %v", got)
	}
}
