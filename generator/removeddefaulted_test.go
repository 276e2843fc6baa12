package generator_test

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	ctldiff "carvel.dev/kapp/pkg/kapp/diff"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/internal/kapptest"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// removedDefaulted are the fields testdata/removed-defaulted's pull request stops declaring that
// the API server defaults to another value: resource name, then the path as check names it and
// as unstructured reads it from the stored object after the deploy (after.yaml).
var removedDefaulted = []struct {
	name, path string
	fields     []string
}{
	{"ledger", "spec.replicas", []string{"spec", "replicas"}},
	{"ledger", "spec.template.spec.containers[name=ledger].readinessProbe.httpGet.scheme", nil}, // a list item: read apart
	{"ledger-migrate", "template.spec.restartPolicy", []string{"template", "spec", "restartPolicy"}},
}

// removedDefaultedInputs are testdata/removed-defaulted's manifests (desired: before the pull
// request, pr: with it) against the objects kapp deployed from the first.
func removedDefaultedInputs(file string) generator.Inputs {
	dir := filepath.Join("testdata", "removed-defaulted")
	return generator.Inputs{Desired: []string{filepath.Join(dir, file)}, Live: []string{filepath.Join(dir, "live.yaml")}, Namespace: "legacy"}
}

// afterDeploy is the value the stored object holds at r after kapp deployed the pull request
// (after.yaml: built with kapp's engine and Kubernetes' defaulting, not with rebasegen).
func afterDeploy(t *testing.T, name string, fields []string) string {
	t.Helper()
	obj := namedObject(t, objectsOf(t, filepath.Join("testdata", "removed-defaulted", "after.yaml")), name)
	if fields == nil { // the ledger container's probe scheme
		cs, _, _ := unstructured.NestedSlice(obj.Object, "spec", "template", "spec", "containers")
		for _, c := range cs {
			if c, _ := c.(map[string]any); c["name"] == "ledger" {
				v, _, _ := unstructured.NestedFieldNoCopy(c, "readinessProbe", "httpGet", "scheme")
				return fmt.Sprint(v)
			}
		}
		t.Fatal("after.yaml: no ledger container")
	}
	v, ok, _ := unstructured.NestedFieldNoCopy(obj.Object, fields...)
	if !ok {
		t.Fatalf("after.yaml: %s has no %v", name, fields)
	}
	return fmt.Sprint(v)
}

// A pull request that stops declaring a ReplicationController's replicas: 2, a probe's scheme:
// HTTPS and a PodTemplate's restartPolicy: Never: the update kapp sends lacks them and the API
// server defaults them anew (1, HTTP, Always). check said "the manifest no longer declares it, and
// this deploy removes it" of each, though the deploy scales the controller down to 1 and switches
// the probe to plain HTTP (newcomer14 N14-2); the pending change now names the value the server
// gives it, the one the stored object holds after the deploy.
func TestPendingRemovalNamesTheServersDefault(t *testing.T) {
	rules, _ := generatedRules(t, removedDefaultedInputs("desired.yaml"))
	c, err := generator.Check(removedDefaultedInputs("pr.yaml"), []string{rules})
	if err != nil {
		t.Fatal(err)
	}
	evidence := map[string]string{}
	for _, p := range c.Pending {
		evidence[p.Resource.Name+" "+p.Finding.Path.String()] = p.Finding.Evidence
	}
	for _, r := range removedDefaulted {
		ev, ok := evidence[r.name+" "+r.path]
		if !ok {
			t.Errorf("%s %s: not a pending change; pending %v", r.name, r.path, evidence)
			continue
		}
		want := "the manifest no longer declares it, and the server defaults it to " + afterDeploy(t, r.name, r.fields) + " on this deploy"
		if !strings.Contains(ev, want) || strings.Contains(ev, "removes it") {
			t.Errorf("%s %s: evidence %q, want it to say %q", r.name, r.path, ev, want)
		}
	}
}

// The rules generated before that pull request are right for its deploy: kapp applies the three
// removals under them (a copy from the live object would keep 2, HTTPS and Never). After the
// deploy the server's defaults are ghost diffs they do not copy, and regenerating them from the
// live objects captured before the deploy changes nothing (those hold the old values): check
// passed without a word, and every deploy after it updated the controller and the template until
// someone regenerated the rules (newcomer14 N14-2). check now notes the file, naming the fields and
// the values the server gives them, and does not fail the gate. Oracles: kapp v0.66.0's engine
// under the rules, over live.yaml (kapp's update lacks the fields) and over after.yaml, the objects
// kapp's engine and Kubernetes' defaulting stored after the deploy (kapp updates both objects
// again on the unchanged manifests, and no longer under the rules generated from them).
func TestRemovedDefaultsSayRegenerateAfterThisDeploy(t *testing.T) {
	rules, _ := generatedRules(t, removedDefaultedInputs("desired.yaml"))
	pr := removedDefaultedInputs("pr.yaml")
	for _, against := range []bool{true, false} {
		for _, ch := range kapptest.Changes(t, pr.Desired, pr.Live[0], pr.Namespace, []string{rules}, against) {
			obj := ch.NewResource().UnstructuredObject()
			for _, r := range removedDefaulted {
				if r.fields == nil || ch.NewResource().Name() != r.name {
					continue
				}
				if v, ok, _ := unstructured.NestedFieldNoCopy(obj, r.fields...); ok {
					t.Errorf("oracle, against last applied %v: kapp applies %s %s: %v, the value Git removed", against, r.name, r.path, v)
				}
			}
		}
	}
	c, err := generator.Check(pr, []string{rules})
	if err != nil {
		t.Fatal(err)
	}
	if fs := c.Findings(verdict.Gate{}); verdict.Failing(fs) {
		t.Errorf("check fails the rules kapp applies the removals under: %v", fs)
	}
	if len(c.Deferred) != 1 {
		t.Fatalf("check: want one note to regenerate the rules after this deploy, got %+v", c.Deferred)
	}
	var want []string
	for _, r := range removedDefaulted {
		want = append(want, "core/"+map[string]string{"ledger": "ReplicationController", "ledger-migrate": "PodTemplate"}[r.name]+" legacy/"+r.name+" "+r.path+": "+afterDeploy(t, r.name, r.fields))
	}
	if got := c.Deferred[0].AfterDeploy; !reflect.DeepEqual(sorted(got), sorted(want)) {
		t.Errorf("check's note names %v, want %v", got, want)
	}

	after := generator.Inputs{Desired: pr.Desired, Live: []string{filepath.Join("testdata", "removed-defaulted", "after.yaml")}, Namespace: "legacy"}
	updated := func(rules string) []string {
		var names []string
		for _, ch := range kapptest.Changes(t, after.Desired, after.Live[0], after.Namespace, []string{rules}, false) {
			if ch.Op() == ctldiff.ChangeOpUpdate {
				names = append(names, ch.NewResource().Name())
			}
		}
		return sorted(names)
	}
	if got := updated(rules); !reflect.DeepEqual(got, []string{"ledger", "ledger-migrate"}) {
		t.Errorf("oracle: after the deploy kapp updates %v under the rules generated before it, want ledger and ledger-migrate", got)
	}
	regenerated, _ := generatedRules(t, after)
	if got := updated(regenerated); len(got) > 0 {
		t.Errorf("oracle: after the deploy kapp updates %v under the rules regenerated then", got)
	}
}
