package generator_test

import (
	"path/filepath"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/internal/kapptest"
	"github.com/rebasegen/rebasegen/generator/synth"
)

// TestGenerateListsNoWrittenReferenceAsPending (newcomer13 N13-1): a pull request bumping the
// image of a Deployment that references a versioned ConfigMap (cfg, live cfg-ver-1): generate's
// text listed the reference, which kapp's templateRules write as the live object holds it, among
// the changes made in Git kapp still updates the Deployment for (and counted it), where explain,
// check and --report json do not. The oracle is kapp's deploy (kapptest.Changes): a field is listed
// exactly where kapp's deploy changes it.
func TestGenerateListsNoWrittenReferenceAsPending(t *testing.T) {
	dir := filepath.Join("testdata", "versioned-reference")
	in := imageBumped(t, generator.Inputs{Desired: []string{filepath.Join(dir, "v1.yaml")}, Live: []string{filepath.Join(dir, "live.yaml")}, Namespace: "versioned-ref"})
	container := func(obj map[string]any) map[string]any {
		return obj["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
	}
	fields := map[string]func(obj map[string]any) any{
		"spec.template.spec.containers[name=web].image": func(obj map[string]any) any { return container(obj)["image"] },
		"spec.template.spec.containers[name=web].envFrom[0].configMapRef.name": func(obj map[string]any) any {
			return container(obj)["envFrom"].([]any)[0].(map[string]any)["configMapRef"].(map[string]any)["name"]
		},
	}
	g, err := generator.Generate(in, synth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, u := range g.Verification.Updates {
		for _, f := range u.Fields {
			listed[u.Resource.String()+" "+f.Path.String()] = true
		}
	}
	for path, value := range fields {
		want := kapptest.MakesEither(t, in.Desired, in.Live[0], in.Namespace, nil, kapptest.Updates("Deployment", value))
		if got := listed["apps/Deployment versioned-ref/web "+path]; got != want {
			t.Errorf("%s listed among what kapp still updates the Deployment for: %v, want %v (kapp's deploy changes it); listed %v", path, got, want, listed)
		}
	}
}
