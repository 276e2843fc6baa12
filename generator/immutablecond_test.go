package generator_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/verdict"
	"github.com/rebasegen/rebasegen/internal/format"
	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// kindAt is the kind of check's finding on the object named name at path, "" without one, and
// whether it fails the gate.
func kindAt(t *testing.T, ch *generator.Checked, name, path string) (verdict.Kind, bool) {
	t.Helper()
	for _, f := range ch.Findings(verdict.Gate{}) {
		if f.Resource.Name == name && f.Path == path {
			return f.Kind, f.Fails
		}
	}
	return "", false
}

// checked is check's verdict on in under the rule files.
func checked(t *testing.T, in generator.Inputs, rules ...string) *generator.Checked {
	t.Helper()
	ch, err := generator.Check(in, rules)
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

// A Job's completions changed in Git, on the captured package-app Job: the API server refuses it
// for a non-indexed Job, and for an Indexed one unless parallelism changes with it (k8s.io/kubernetes
// v1.37.2 pkg/apis/batch/validation validateCompletions). It passed as "kapp applies it on deploy"
// (newcomer8 N8-4).
func TestJobCompletionsChangeFailsUnlessIndexedInTandem(t *testing.T) {
	in := fixture("package-app")
	job := func(completions, parallelism int64, indexed bool) func(*unstructured.Unstructured) {
		return func(u *unstructured.Unstructured) {
			if u.GetName() != "shop-db-migrate" {
				return
			}
			if err := unstructured.SetNestedField(u.Object, completions, "spec", "completions"); err != nil {
				t.Fatal(err)
			}
			if parallelism > 0 {
				_ = unstructured.SetNestedField(u.Object, parallelism, "spec", "parallelism")
			}
			if indexed {
				_ = unstructured.SetNestedField(u.Object, "Indexed", "spec", "completionMode")
			}
		}
	}
	for _, c := range []struct {
		name                  string
		indexed               bool
		completions, parallel int64
		want                  verdict.Kind
	}{
		{"non-indexed", false, 2, 0, verdict.KindImmutable},
		{"non-indexed with parallelism", false, 2, 2, verdict.KindImmutable},
		{"indexed alone", true, 2, 0, verdict.KindImmutable},
		{"indexed in tandem", true, 2, 2, verdict.KindPending},
	} {
		t.Run(c.name, func(t *testing.T) {
			pr := in
			pr.Desired = []string{editedKind(t, in.Desired[0], "Job", job(c.completions, c.parallel, c.indexed))}
			if c.indexed {
				// the captured Job, as the server keeps an Indexed one: one completion, one pod at a time
				pr.Live = []string{editedKind(t, in.Live[0], "Job", job(1, 1, true))}
			}
			kind, fails := kindAt(t, checked(t, pr), "shop-db-migrate", "spec.completions")
			if kind != c.want || fails != (c.want == verdict.KindImmutable) {
				t.Errorf("spec.completions: want %s, got %q (fails %v)", c.want, kind, fails)
			}
		})
	}
}

// immutableLive is the package-app capture with its ConfigMap and Secret marked immutable: true,
// in the live objects and in what kapp last applied, as a deploy of a manifest declaring it left
// them; and in the manifest.
func immutableLive(t *testing.T, edit func(*unstructured.Unstructured)) generator.Inputs {
	t.Helper()
	in := fixture("package-app")
	mark := func(u *unstructured.Unstructured) {
		if u.GetKind() != "ConfigMap" && u.GetKind() != "Secret" {
			return
		}
		u.Object["immutable"] = true
		ann := u.GetAnnotations()
		if orig := ann[kappconv.Original]; orig != "" {
			var o map[string]any
			if err := json.Unmarshal([]byte(orig), &o); err != nil {
				t.Fatal(err)
			}
			o["immutable"] = true
			bs, _ := json.Marshal(o)
			ann[kappconv.Original] = string(bs)
			u.SetAnnotations(ann)
		}
	}
	in.Live = []string{editedKind(t, in.Live[0], "", mark)}
	in.Desired = []string{editedKind(t, in.Desired[0], "", func(u *unstructured.Unstructured) {
		mark(u)
		edit(u)
	})}
	return in
}

// A change made in Git to the data of a ConfigMap or Secret whose live object is immutable: true,
// or to that field, is refused by the API server (k8s.io/kubernetes v1.37.2
// pkg/apis/core/validation ValidateConfigMapUpdate, ValidateSecretUpdate). It passed as "kapp
// applies it on deploy" (newcomer8 N8-5). The Secret's values appear in no format.
func TestImmutableConfigMapAndSecretDataChangesFail(t *testing.T) {
	// the rules generate writes for the capture, which fold the Secret's stringData into data
	rules, _ := generatedRules(t, immutableLive(t, func(*unstructured.Unstructured) {}))
	for _, c := range []struct {
		name, kind, object, path string
		edit                     func(map[string]any)
	}{
		{"configmap value", "ConfigMap", "shop-config", "data.log-level", func(o map[string]any) { o["data"].(map[string]any)["log-level"] = "debug" }},
		{"configmap key removed", "ConfigMap", "shop-config", "data.cache-ttl", func(o map[string]any) { delete(o["data"].(map[string]any), "cache-ttl") }},
		{"configmap made mutable", "ConfigMap", "shop-config", "immutable", func(o map[string]any) { delete(o, "immutable") }},
		{"secret value", "Secret", "shop-db", "", func(o map[string]any) { o["stringData"].(map[string]any)["password"] = "another-made-up-one" }},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := immutableLive(t, func(u *unstructured.Unstructured) {
				if u.GetKind() == c.kind {
					c.edit(u.Object)
				}
			})
			ch := checked(t, in, rules)
			var mine []verdict.Finding
			for _, f := range ch.Findings(verdict.Gate{}) {
				if f.Resource.Name == c.object && (c.path == "" || f.Path == c.path) {
					mine = append(mine, f)
				}
			}
			if len(mine) == 0 {
				t.Fatalf("no finding on %s %s", c.object, c.path)
			}
			for _, f := range mine {
				if f.Kind != verdict.KindImmutable || !f.Fails || !strings.Contains(f.Evidence, "immutable while the live object's immutable is true") ||
					!strings.Contains(f.Evidence, kappconv.Versioned) {
					t.Errorf("%s: want %s failing the gate, with kapp.k14s.io/versioned among the advice, got %s (fails %v): %s", f.Path, verdict.KindImmutable, f.Kind, f.Fails, f.Evidence)
				}
			}
			if c.kind != "Secret" {
				return
			}
			fs := ch.Findings(verdict.Gate{})
			for _, ft := range []format.Format{format.Text, format.JSON, format.GitHub} {
				var out bytes.Buffer
				if err := verdict.Write(&out, ft, verdict.CheckReport(ch.Verdict, fs, ch.Lint), "rules.yml"); err != nil {
					t.Fatal(err)
				}
				for _, secret := range []string{"another-made-up-one", "not-a-real-password", "bm90LWEtcmVhbC1wYXNzd29yZA"} {
					if strings.Contains(out.String(), secret) {
						t.Errorf("%s output holds the Secret's value %q:\n%s", ft, secret, out.String())
					}
				}
			}
		})
	}

	// the same data change to a ConfigMap that is not immutable is what kapp applies
	in := fixtureEdited(t, "package-app", "ConfigMap", func(u *unstructured.Unstructured) {
		u.Object["data"].(map[string]any)["log-level"] = "debug"
	})
	if kind, fails := kindAt(t, checked(t, in), "shop-config", "data.log-level"); kind != verdict.KindPending || fails {
		t.Errorf("a mutable ConfigMap: want %s, got %q (fails %v)", verdict.KindPending, kind, fails)
	}
}

// A Namespace's spec.finalizers declared otherwise in Git, on the captured create-strategies
// Namespace: the API server keeps the live value on update (k8s.io/kubernetes v1.37.2
// pkg/registry/core/namespace/strategy.go PrepareForUpdate), so the deploy succeeds and changes
// nothing, and kapp shows the change again on every later deploy. It was reported as a change
// this deploy applies (newcomer8 N8-9); it stays a warning, its evidence saying it never lands.
func TestNamespaceFinalizersChangeNeverLands(t *testing.T) {
	in := fixtureEdited(t, "create-strategies", "Namespace", func(u *unstructured.Unstructured) {
		if err := unstructured.SetNestedStringSlice(u.Object, []string{"kubernetes", "example.com/cleanup"}, "spec", "finalizers"); err != nil {
			t.Fatal(err)
		}
	})
	found := false
	for _, f := range checked(t, in).Findings(verdict.Gate{}) {
		if f.Resource.Kind != "Namespace" || !strings.HasPrefix(f.Path, "spec.finalizers") {
			continue
		}
		found = true
		if f.Kind != verdict.KindPending || f.Fails || !strings.Contains(f.Evidence, "the deploy does not change it: the API server keeps the live value on update") {
			t.Errorf("%s: want a %s warning saying the deploy does not change it, got %s (fails %v): %s", f.Path, verdict.KindPending, f.Kind, f.Fails, f.Evidence)
		}
	}
	if !found {
		t.Error("no finding at the Namespace's spec.finalizers")
	}
}
