package classify

import (
	"fmt"
	"testing"

	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/rulesets"
)

// classifyYAML classifies one desired/live pair given as YAML and returns each finding by path.
func classifyYAML(t *testing.T, desired, live string) map[string]Finding {
	t.Helper()
	return classifyVersion(t, desired, live, nil)
}

// classifyVersion is classifyYAML with the defaults of the API server version v (nil: the
// linked version's).
func classifyVersion(t *testing.T, desired, live string, v *rulesets.VersionDefaults) map[string]Finding {
	t.Helper()
	rs, err := rulesets.Load()
	if err != nil {
		t.Fatal(err)
	}
	// the operators these tests invent, named as a user names theirs: a manager no ruleset
	// knows that rewrote a declared value is unknown (TestManagerNoRulesetNamesIsNoControllerOfADeclaredValue)
	if err := rs.Add("test-controllers.yaml", []byte(testControllers)); err != nil {
		t.Fatal(err)
	}
	d, err := load.ParseDocs("desired.yaml", []byte(desired))
	if err != nil {
		t.Fatal(err)
	}
	l, err := load.ParseDocs("live.yaml", []byte(live))
	if err != nil {
		t.Fatal(err)
	}
	set, err := pair.Build(d, l, pair.Options{Namespace: "ns", Rules: rs})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Classify(set, Options{Rules: rs, Version: v})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]Finding{}
	for _, r := range rep.Resources {
		for _, f := range r.Findings {
			out[f.Path.String()] = f
		}
	}
	return out
}

// Issue 12 item 7: a field owned by two Apply managers, a person's kubectl and an operator, is
// drift in either order of the managedFields entries and whichever is newer.
func TestHumanAmongOwnersIsDriftInAnyOrder(t *testing.T) {
	const desired = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: ns}\ndata: {a: \"1\", level: info}\n"
	kapp := `- {manager: kapp, operation: Update, apiVersion: v1, time: "2026-11-22T04:41:10Z", fieldsType: FieldsV1, fieldsV1: {f:data: {.: {}, f:a: {}}, f:metadata: {f:annotations: {.: {}, f:kapp.k14s.io/identity: {}}}}}`
	entry := func(manager, time string) string {
		return fmt.Sprintf(`- {manager: %s, operation: Apply, apiVersion: v1, time: %q, fieldsType: FieldsV1, fieldsV1: {f:data: {f:level: {}}}}`, manager, time)
	}
	for _, tc := range []struct{ name, humanTime, operatorTime string }{
		{"same second", "2026-11-22T04:41:11Z", "2026-11-22T04:41:11Z"},
		{"human older", "2026-11-22T04:41:11Z", "2026-11-22T04:41:12Z"},
		{"human newer", "2026-11-22T04:41:12Z", "2026-11-22T04:41:11Z"},
	} {
		for _, order := range []string{"human first", "operator first"} {
			t.Run(tc.name+", "+order, func(t *testing.T) {
				entries := []string{entry("kubectl", tc.humanTime), entry("shop-operator", tc.operatorTime)}
				if order == "operator first" {
					entries[0], entries[1] = entries[1], entries[0]
				}
				live := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: ns\n  annotations: {kapp.k14s.io/identity: x}\n  managedFields:\n" +
					indent(kapp) + indent(entries[0]) + indent(entries[1]) + "data: {a: \"1\", level: debug}\n"
				f, ok := classifyYAML(t, desired, live)["data.level"]
				if !ok {
					t.Fatal("no finding for data.level")
				}
				if f.Class != Drift || f.Owner != "kubectl" {
					t.Errorf("data.level: %s (owner %s), want drift by kubectl: %s", f.Class, f.Owner, f.Evidence)
				}
			})
		}
	}
}

// Two controllers in the same second: the verdict names the same one in either order.
func TestOwnerOfTheSameSecondIndependentOfOrder(t *testing.T) {
	const desired = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: ns}\ndata: {a: \"1\"}\n"
	entry := func(manager string) string {
		return fmt.Sprintf(`- {manager: %s, operation: Update, apiVersion: v1, time: "2026-11-22T04:41:11Z", fieldsType: FieldsV1, fieldsV1: {f:data: {f:b: {}}}}`, manager)
	}
	kapp := `- {manager: kapp, operation: Update, apiVersion: v1, time: "2026-11-22T04:41:10Z", fieldsType: FieldsV1, fieldsV1: {f:data: {.: {}, f:a: {}}}}`
	var owners []string
	for _, es := range [][2]string{{entry("b-operator"), entry("a-operator")}, {entry("a-operator"), entry("b-operator")}} {
		live := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: ns\n  managedFields:\n" + indent(kapp) + indent(es[0]) + indent(es[1]) + "data: {a: \"1\", b: x}\n"
		f := classifyYAML(t, desired, live)["data.b"]
		if f.Class != Controller {
			t.Fatalf("data.b: %s, want controller: %s", f.Class, f.Evidence)
		}
		owners = append(owners, f.Owner)
	}
	if owners[0] != owners[1] {
		t.Errorf("owner depends on the order of managedFields: %v", owners)
	}
}

const testControllers = "controllers:\n- {name: shop-operator, source: test}\n- {name: shop-cli, source: test}\n- {name: ip-job, source: test}\n"

func indent(s string) string { return "  " + s + "\n" }

// Issue 11 cause 2: a manager owning an atomic list (f:ipAddresses: {}, no list-type markers in
// the CRD) owns every item of it: an item a post-deploy job rewrote is the job's, not drift.
func TestOwnerOfAnAtomicListOwnsItsItems(t *testing.T) {
	const desired = "apiVersion: example.com/v1\nkind: Gateway\nmetadata: {name: g, namespace: ns}\nspec: {class: a, ipAddresses: [10.0.0.1, 10.0.0.2]}\n"
	for _, tc := range []struct {
		name, jobFields, want string
	}{
		{"atomic list", `{f:spec: {f:ipAddresses: {}}}`, "controller:ip-job"},
		// a granular map: the job owns one key, and the other key's difference is not its
		{"granular sibling", `{f:spec: {f:other: {}}}`, "drift"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			live := "apiVersion: example.com/v1\nkind: Gateway\nmetadata:\n  name: g\n  namespace: ns\n  managedFields:\n" +
				indent(`- {manager: kapp, operation: Update, apiVersion: example.com/v1, time: "2026-11-22T04:41:10Z", fieldsType: FieldsV1, fieldsV1: {f:spec: {.: {}, f:class: {}}}}`) +
				indent(fmt.Sprintf(`- {manager: ip-job, operation: Update, apiVersion: example.com/v1, time: "2026-11-22T04:41:11Z", fieldsType: FieldsV1, fieldsV1: %s}`, tc.jobFields)) +
				"spec: {class: a, ipAddresses: [10.0.0.1, 10.0.0.9]}\n"
			got := classifyYAML(t, desired, live)
			f, ok := got["spec.ipAddresses[1]"]
			if !ok {
				t.Fatalf("no finding for spec.ipAddresses[1]: %v", got)
			}
			if f.Label() != tc.want {
				t.Errorf("spec.ipAddresses[1]: %s, want %s: %s", f.Label(), tc.want, f.Evidence)
			}
		})
	}
}
