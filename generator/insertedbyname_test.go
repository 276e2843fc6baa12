package generator_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	ctldiff "carvel.dev/kapp/pkg/kapp/diff"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/internal/kapptest"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// A pull request inserting a container (envoy) before the others and a volume (tmp), under the
// rules the README's package workflow generated, which copy the containers' defaults by name (a
// ytt rule over api, proxy and migrate): check passed with two pending changes and no word that
// the server defaults fields of the new container the rules do not restore; after the deploy the
// next pull request failed on them (newcomer17 N17-2). The fixture is the newcomer's real
// capture before the deploy and after it (post-live.yaml, as the API server stored the pull
// request's manifests); the oracle is kapp's engine on that object under the committed rules:
// it updates the Deployment for envoy's imagePullPolicy, resources and terminationMessage*,
// and for nothing else of envoy or of the volume tmp.
func TestItemInsertedWithDefaultsTheRulesDoNotCoverSaysRegenerateAfterTheDeploy(t *testing.T) {
	dir := filepath.Join("testdata", "inserted-by-name")
	pr, rules, post := filepath.Join(dir, "pr.yaml"), filepath.Join(dir, "rules.yml"), filepath.Join(dir, "post-live.yaml")
	defaulted := []string{"imagePullPolicy", "resources", "terminationMessagePath", "terminationMessagePolicy"}
	item := func(list, name string) func(map[string]any) map[string]any {
		return func(obj map[string]any) map[string]any {
			spec, _, _ := unstructured.NestedMap(obj, "spec", "template", "spec")
			items, _ := spec[list].([]any)
			for _, it := range items {
				if m, ok := it.(map[string]any); ok && m["name"] == name {
					return m
				}
			}
			return nil
		}
	}
	envoy, tmp := item("containers", "envoy"), item("volumes", "tmp")
	for _, f := range append([]string{"name", "image"}, defaulted...) {
		updated := kapptest.MakesEither(t, []string{pr}, post, "ledger", []string{rules}, kapptest.Updates("Deployment", func(obj map[string]any) any { return envoy(obj)[f] }))
		if want := slices.Contains(defaulted, f); updated != want {
			t.Fatalf("oracle: after the deploy, kapp's engine under the committed rules updates envoy's %s: %v, want %v", f, updated, want)
		}
	}
	if kapptest.MakesEither(t, []string{pr}, post, "ledger", []string{rules}, kapptest.Updates("Deployment", func(obj map[string]any) any { return tmp(obj) })) {
		t.Fatal("oracle: after the deploy, kapp's engine under the committed rules updates the volume tmp")
	}
	for _, ch := range kapptest.BothBases(t, []string{filepath.Join(dir, "desired.yaml")}, filepath.Join(dir, "live.yaml"), "ledger", []string{rules}) {
		if ch.Op() != ctldiff.ChangeOpKeep && ch.Op() != ctldiff.ChangeOpNoop {
			t.Fatalf("oracle: before the pull request, kapp (against last applied %v) makes %s %s under the committed rules", ch.AgainstLastApplied, ch.Op(), ch.NewResource().Name())
		}
	}

	c, err := generator.Check(generator.Inputs{Desired: []string{pr}, Live: []string{filepath.Join(dir, "live.yaml")}}, []string{rules})
	if err != nil {
		t.Fatal(err)
	}
	const after = "regenerate the rules after the deploy, from a new capture"
	seen := map[string]string{}
	for _, f := range c.Findings(verdict.Gate{}) {
		if f.Fails {
			t.Errorf("%s %s %s fails the gate: %s", f.Kind, f.Resource, f.Path, f.Evidence)
		}
		if f.Kind == verdict.KindPending {
			seen[f.Path] = f.Evidence
		}
	}
	got, ok := seen["spec.template.spec.containers[name=envoy]"]
	if !ok {
		t.Fatalf("no pending change for envoy: %v", seen)
	}
	if !strings.Contains(got, "sets its "+strings.Join(defaulted, ", ")+" on deploy") || !strings.Contains(got, after) {
		t.Errorf("envoy's pending change does not name the defaults the rules leave and say to regenerate after the deploy: %s", got)
	}
	if got, ok := seen["spec.template.spec.volumes[name=tmp]"]; !ok || strings.Contains(got, after) {
		t.Errorf("the volume tmp, which the server stores as declared: want a pending change without the note, got %q (seen %v)", got, ok)
	}
}
