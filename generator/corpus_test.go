package generator_test

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/synth"
	"github.com/rebasegen/rebasegen/generator/verify"
	"github.com/rebasegen/rebasegen/internal/kappconv"
	"github.com/rebasegen/rebasegen/internal/scenario"
)

func scenarios(t testing.TB) []*scenario.Scenario {
	t.Helper()
	all, err := scenario.LoadAll("../fixtures")
	if err != nil {
		t.Fatal(err)
	}
	if len(all) < 18 {
		t.Fatalf("want the 18 captured scenarios, found %d", len(all))
	}
	return all
}

// capture is the scenarios as captured on one API server version.
type capture struct {
	server    string // the version live.yaml's header names
	scenarios []*scenario.Scenario
}

// captures are the scenarios captured on the test cluster (fixtures/) and the same scenarios
// captured on a v1.35.0 API server before it moved to 1.37 (fixtures/v1.35/, inputs only): one
// binary has to serve the clusters people run, whichever version defaulted their objects.
func captures(t testing.TB) []capture {
	t.Helper()
	older, err := scenario.LoadAll("../fixtures/v1.35")
	if err != nil {
		t.Fatal(err)
	}
	var out []capture
	for _, c := range []capture{{scenarios: scenarios(t)}, {scenarios: older}} {
		if len(c.scenarios) < 18 {
			t.Fatalf("want the 18 captured scenarios of each version, found %d", len(c.scenarios))
		}
		for _, s := range c.scenarios {
			v, err := scenario.CapturedOn(s.Dir)
			if err != nil {
				t.Fatal(err)
			}
			if c.server != "" && v != c.server {
				t.Fatalf("%s was captured on %s, the other scenarios beside it on %s", s.Dir, v, c.server)
			}
			c.server = v
		}
		out = append(out, c)
	}
	if out[0].server == out[1].server {
		t.Fatalf("fixtures/ and fixtures/v1.35 both captured on %s", out[0].server)
	}
	return out
}

func inputs(s *scenario.Scenario) generator.Inputs {
	return generator.Inputs{
		Desired:   []string{filepath.Join(s.Dir, "desired.yaml")},
		Live:      []string{filepath.Join(s.Dir, "live.yaml")},
		Namespace: s.Namespace,
		Rulesets:  s.Rulesets,
	}
}

// Every differing field of every captured scenario gets exactly the class the scenario's
// production says it has.
func TestExplainReproducesEveryScenarioClass(t *testing.T) {
	counts := map[string]int{}
	for _, s := range scenarios(t) {
		t.Run(s.Name, func(t *testing.T) {
			rep, _, err := generator.Explain(inputs(s))
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, r := range rep.Resources {
				for _, f := range r.Findings {
					if f.KappView { // not a difference between the objects; see classify.Finding
						continue
					}
					if strings.Contains(f.Path.String(), kappconv.Prefix) {
						// kapp's own keys, which the scenario's field diff leaves out as kapp's
						// bookkeeping (TestKappLabelsOnTakeoverAreAdoption holds those kapp's
						// takeover writes to kapp's change set)
						continue
					}
					got[r.ID.String()+" "+f.Path.String()] = f.Label()
					counts[string(f.Class)]++
				}
			}
			want := map[string]string{}
			for _, f := range s.Fields {
				want[f.Resource+" "+f.Path] = f.Class
			}
			var keys []string
			for k := range got {
				keys = append(keys, k)
			}
			for k := range want {
				if _, ok := got[k]; !ok {
					keys = append(keys, k)
				}
			}
			sort.Strings(keys)
			for _, k := range keys {
				if got[k] != want[k] {
					t.Errorf("%s: want class %q, got %q", k, want[k], got[k])
				}
			}
		})
	}
	t.Logf("classes over the corpus: %v", counts)
}

// Generated rules remove every ghost diff under both of kapp's bases, per kapp's own engine,
// and hide no declared value (the mutation check inside Generate).
// Both captures: the v1.35 one with the same binary.
func TestGenerateVerifiesEveryScenario(t *testing.T) {
	total := map[string]int{}
	for _, c := range captures(t) {
		for _, s := range c.scenarios {
			t.Run(c.server+"/"+s.Name, func(t *testing.T) {
				g, err := generator.Generate(inputs(s), synth.Options{})
				if err != nil {
					t.Fatal(err)
				}
				v := g.Verification
				if !v.OK() || v.KeptPairs != v.GhostPairs {
					t.Fatalf("verification failed:\n%s\nresidual: %v\nhidden: %v", v.Summary(), v.Residual, v.Hidden)
				}
				total["rules"] += len(g.Rules)
				total["ghostFields"] += v.GhostFields
				total["masked"] += len(v.Masked)
				total["mutations"] += v.MutationsRun
			})
		}
	}
	t.Logf("over the corpus: %v", total)
}

// A real change to the desired objects stays an update under the generated rules, in both captures.
func TestRealChangeStaysVisible(t *testing.T) {
	n := 0
	for _, c := range captures(t) {
		for _, s := range c.scenarios {
			if s.RealChange == nil {
				continue
			}
			n++
			g, err := generator.Generate(inputs(s), synth.Options{})
			if err != nil {
				t.Fatal(err)
			}
			changed, err := s.DesiredWithRealChange()
			if err != nil {
				t.Fatal(err)
			}
			live, err := load.Paths([]string{filepath.Join(s.Dir, "live.yaml")}, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range changed {
				d.SetNamespace(s.Namespace)
				for _, l := range live {
					if l.GetKind() != d.GetKind() || l.GetName() != d.GetName() {
						continue
					}
					res, err := verify.Verify([]verify.Pair{{Desired: d, Live: l.Unstructured}}, append(unstructuredOf(g.Set.Configs), g.Config))
					if err != nil {
						t.Fatal(err)
					}
					isTarget := strings.HasSuffix(s.RealChange.Resource, "/"+d.GetName()) && strings.Contains(s.RealChange.Resource, "/"+d.GetKind()+" ")
					for _, b := range verify.Bases() {
						if got := res[0].Op[b]; isTarget && got != verify.OpUpdate {
							t.Errorf("%s/%s: %s %s: real change hidden under the %s base: %s", c.server, s.Name, d.GetKind(), d.GetName(), b, got)
						}
					}
				}
			}
		}
	}
	if n < 2 {
		t.Fatal("no scenario has a realChange")
	}
}

// One Deployment of a package has an HPA: only that one gets the replicas rule.
func TestControllerRulesNameOnlyTheResourcesWithEvidence(t *testing.T) {
	for _, s := range scenarios(t) {
		if s.Name != "package-app" {
			continue
		}
		g, err := generator.Generate(inputs(s), synth.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var replicaRules []string
		for _, r := range g.Rules {
			for _, p := range r.Paths {
				if strings.Join(p, ".") != "spec.replicas" {
					continue
				}
				for _, m := range r.Matchers {
					if m.KindNamespaceName == nil {
						t.Errorf("spec.replicas ruled for a whole kind: %+v", m)
						continue
					}
					replicaRules = append(replicaRules, m.KindNamespaceName.Kind+"/"+m.KindNamespaceName.Name)
				}
			}
		}
		if len(replicaRules) != 1 {
			t.Fatalf("want the replicas rule for exactly the Deployment with an HPA, got %v", replicaRules)
		}
		return
	}
	t.Fatal("package-app scenario missing")
}

// List items are copied by index ({allIndexes: true}: no ytt for kapp to run) on the resources
// whose items line up in desired and live; a Deployment with a sidecar injected before its
// declared container keeps the ytt rule selecting items by key, named by a rule of its own and
// excluded from the plain one. Both verified by kapp's engine under both bases. web's container
// declares its resources: it stays in the plain copy of the scalars, which holds no copy of
// resources (it would put web's back once Git removed them, issue 23), and the sidecar
// Deployment's defaulted {} is in its ytt rule (the first fix of issue 23 gave web a ytt rule too).
func TestListItemsByIndexExceptWhereTheyDoNotLineUp(t *testing.T) {
	dir := t.TempDir()
	var desired, live strings.Builder
	for _, s := range scenarios(t) {
		if s.Name != "hpa-replicas" && s.Name != "sidecar-injection" {
			continue
		}
		for _, o := range s.Objects {
			for _, x := range []struct {
				b *strings.Builder
				u *unstructured.Unstructured
			}{{&desired, o.Desired}, {&live, o.Live}} {
				bs, err := yaml.Marshal(x.u.Object)
				if err != nil {
					t.Fatal(err)
				}
				x.b.WriteString("---\n" + string(bs))
			}
		}
	}
	in := generator.Inputs{Desired: []string{filepath.Join(dir, "desired.yaml")}, Live: []string{filepath.Join(dir, "live.yaml")}}
	for i, text := range []string{desired.String(), oneApp(live.String())} {
		if err := os.WriteFile([]string{in.Desired[0], in.Live[0]}[i], []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g, err := generator.Generate(in, synth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if v := g.Verification; !v.OK() || v.KeptPairs != v.GhostPairs || v.GhostPairs != 3 {
		t.Fatalf("verification failed:\n%v\nresidual: %v\nhidden: %v", v.Summary(), v.Residual, v.Hidden)
	}
	var byIndex, byKey []synth.Rule
	yttRules := 0
	for _, rule := range g.Rules {
		if rule.YTT() {
			yttRules++
		}
		for _, r := range rule.Parts() {
			if len(r.Classes) == 0 || r.Classes[0] != classify.Defaulted {
				continue
			}
			if len(r.Indexed) > 0 {
				byIndex = append(byIndex, r)
			}
			if len(r.Keyed) > 0 {
				byKey = append(byKey, r)
			}
		}
	}
	// the sidecar's container (the controller's) and its neighbour's defaults (the kind's): one
	// ytt rule, so one ytt evaluation of the sidecar Deployment
	if yttRules != 1 {
		t.Errorf("%d ytt rules, want one for the sidecar Deployment", yttRules)
	}
	if len(byIndex) != 1 || len(byKey) != 1 {
		t.Fatalf("want one plain rule by index and one ytt rule by key, got %d and %d", len(byIndex), len(byKey))
	}
	for _, p := range byIndex[0].Indexed {
		if strings.HasSuffix(p.String(), "].resources") {
			t.Errorf("the plain copy by index matches web, whose container declares its resources, and copies %s", p)
		}
	}
	if !slices.ContainsFunc(byKey[0].Empty, func(p fielddiff.Path) bool {
		return p.String() == "spec.template.spec.containers[name=reviews].resources"
	}) {
		t.Errorf("the sidecar Deployment's defaulted resources are not in its ytt rule: %v", byKey[0].Empty)
	}
	m := byIndex[0].Matchers
	if len(m) != 1 || m[0].And == nil || len(m[0].And.Matchers) != 2 || m[0].And.Matchers[0].APIVersionKind == nil ||
		m[0].And.Matchers[1].Not == nil || m[0].And.Matchers[1].Not.Matcher.Any == nil {
		t.Fatalf("the plain rule matches Deployments except the named ones: %+v", m)
	}
	excluded := m[0].And.Matchers[1].Not.Matcher.Any.Matchers
	named := byKey[0].Matchers
	if len(excluded) != 1 || len(named) != 1 || *excluded[0].KindNamespaceName != *named[0].KindNamespaceName ||
		named[0].KindNamespaceName.Name != "reviews" {
		t.Errorf("the sidecar Deployment, and only it, moves from the plain rule to the ytt rule: excluded %+v, named %+v", excluded, named)
	}
	if !strings.Contains(byKey[0].ByKey, "item 0 of spec.template.spec.containers is name=istio-proxy live, name=reviews desired") {
		t.Errorf("the ytt rule says why: %q", byKey[0].ByKey)
	}
}

// The Git change of every scenario with a realChange, generated from before it is deployed (the
// manifest changed, the live object still as captured): no rule may take the changed fields from
// the cluster, whoever applied the object before (fixtures/adopt-*: kubectl, Argo CD, a Helm-like
// tool nobody listed), and kapp's engine must still show the change under both bases.
func TestRealChangeNotRuledWhenGeneratedFromTheChangedManifest(t *testing.T) {
	for _, c := range captures(t) {
		for _, s := range c.scenarios {
			if s.RealChange == nil {
				continue
			}
			t.Run(c.server+"/"+s.Name, func(t *testing.T) {
				changed, err := s.DesiredWithRealChange()
				if err != nil {
					t.Fatal(err)
				}
				var b []byte
				for _, d := range changed {
					bs, err := yaml.Marshal(d.Object)
					if err != nil {
						t.Fatal(err)
					}
					b = append(append(b, "---\n"...), bs...)
				}
				in := inputs(s)
				in.Desired = []string{filepath.Join(t.TempDir(), "changed.yaml")}
				if err := os.WriteFile(in.Desired[0], b, 0o644); err != nil {
					t.Fatal(err)
				}
				g, err := generator.Generate(in, synth.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if len(g.Verification.Hidden) > 0 {
					t.Errorf("the mutation check finds hidden declared fields: %v", g.Verification.Hidden)
				}
				for _, r := range g.Report.Resources {
					if r.ID.String() != s.RealChange.Resource {
						continue
					}
					for _, f := range r.Findings {
						if f.Path.String() == s.RealChange.Path && f.Class.Ghost() {
							t.Errorf("%s %s: the Git change is classified %s (%s): it would be ruled", r.ID, f.Path, f.Label(), f.Evidence)
						}
					}
					pr, err := verify.Verify([]verify.Pair{verifyPairOf(t, r)}, append(unstructuredOf(g.Set.Configs), g.Config))
					if err != nil {
						t.Fatal(err)
					}
					for _, base := range verify.Bases() {
						if pr[0].Op[base] != verify.OpUpdate {
							t.Errorf("%s: the Git change is hidden under the %s base", r.ID, base)
						}
					}
				}
			})
		}
	}
}

func verifyPairOf(t *testing.T, r classify.Resource) verify.Pair {
	t.Helper()
	d, l, err := r.Objects()
	if err != nil {
		t.Fatal(err)
	}
	return verify.Pair{Desired: d.Unstructured, Live: l.Unstructured}
}
