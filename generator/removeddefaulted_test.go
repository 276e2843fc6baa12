package generator_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator"
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
