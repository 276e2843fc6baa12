package generator_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/lint"
	"github.com/rebasegen/rebasegen/generator/verdict"
	"github.com/rebasegen/rebasegen/internal/ytttest"
)

// TestRuleDecidingOnWhatTheCheckDoesNotVaryIsNotJudged (issue 23, probe12 P12-1, P12-4, P12-6,
// P12-7): hand-written ytt rules copying the live image only in a state the mutation check never
// explores passed check (exit 0) on the image bump made in Git, though kapp hides a change made in
// Git once that state comes: while the live Deployment is Available (its status), once the live
// image is the one Git now declares or the live replicas are another count (values of the live
// object the next deploy or the autoscaler leaves), once kapp wrote another nonce, once the API
// server's generation, resourceVersion or a manager's time went past a bound (probe13 P13-4: the
// check's redraws of them stay close to the captured ones). A rule deciding
// on the text of the manifest's value passed or failed depending on the run's random draws. Each
// is a finding failing the gate at the rule's line, naming the value read, on every run. The
// oracle that each rule hides a change in that state is kapp's deploy diff (deployedImage): the
// object kapp applies there keeps the live image under the rule, Git's without it.
func TestRuleDecidingOnWhatTheCheckDoesNotVaryIsNotJudged(t *testing.T) {
	generated, _ := generatedRules(t, fixture("hpa-replicas")) // the ghost diffs: no other finding
	in := imageBumped(t, fixture("hpa-replicas"))
	copyImage := `obj["spec"]["template"]["spec"]["containers"][0]["image"] = ex["spec"]["template"]["spec"]["containers"][0]["image"]`
	// a manifest asking kapp for a nonce ("" in Git: kapp writes a new one on every deploy), as
	// kapp deployed it: its value live and in kapp.k14s.io/original
	withNonce := func(in generator.Inputs, value string) generator.Inputs {
		in.Desired = []string{editedKind(t, in.Desired[0], "Deployment", func(u *unstructured.Unstructured) {
			u.SetAnnotations(map[string]string{"kapp.k14s.io/nonce": ""})
		})}
		in.Live = []string{deployedAs(t, in.Live[0], func(obj map[string]any) {
			unstructured.SetNestedField(obj, value, "metadata", "annotations", "kapp.k14s.io/nonce")
		})}
		return in
	}
	// the inputs of a deploy in the state the rule decides on: the live object edited, the
	// manifest's image as Git declares it then
	later := func(in generator.Inputs, image string, edit func(obj map[string]any)) generator.Inputs {
		if edit != nil {
			in.Live = []string{deployedAs(t, in.Live[0], edit)}
		}
		in.Desired = []string{editedKind(t, in.Desired[0], "Deployment", func(u *unstructured.Unstructured) {
			u.Object["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["image"] = image
		})}
		return in
	}
	generation := func(n int64) func(obj map[string]any) {
		return func(obj map[string]any) { obj["metadata"].(map[string]any)["generation"] = n }
	}
	for _, c := range []struct {
		name  string
		in    generator.Inputs
		rule  string
		read  string // the value the finding names
		runs  int
		later generator.Inputs // a deploy in the state the rule decides on
		kept  string           // the image kapp keeps there under the rule
		lint  bool             // lint --live asked too
	}{
		{"status (P12-1)", in, webYTT(`
if ex != None and "status" in ex:
  for c in ex["status"]["conditions"]:
    if c["type"] == "Available" and c["status"] == "True":
      ` + copyImage + `
    end
  end
end`), "existing status.conditions[type=Available].type", 1,
			later(in, "nginx:1.27", func(obj map[string]any) {
				obj["status"].(map[string]any)["conditions"].([]any)[0].(map[string]any)["status"] = "True"
			}), "nginx:1.25", false},
		{"the live value of the field written (P12-4)", in, webYTT(`
if ex != None and ex["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.27":
  ` + copyImage + `
end`), "existing spec.template.spec.containers[name=web].image", 1,
			// deployed: the live image and kapp's last apply are 1.27, Git bumps it again
			later(in, "nginx:1.28", func(obj map[string]any) {
				obj["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["image"] = "nginx:1.27"
			}), "nginx:1.27", false},
		{"the live value of another field (P12-4)", in, webYTT(`
if ex != None and ex["spec"]["replicas"] == 12:
  ` + copyImage + `
end`), "existing spec.replicas", 1,
			later(in, "nginx:1.27", func(obj map[string]any) { obj["spec"].(map[string]any)["replicas"] = int64(12) }), "nginx:1.25", true},
		{"kapp's nonce (P12-6)", withNonce(in, "1764000000000000000"), webYTT(`
if ex != None and ex["metadata"]["annotations"]["kapp.k14s.io/nonce"] != "1764000000000000000":
  ` + copyImage + `
end`), `existing metadata.annotations["kapp.k14s.io/nonce"]`, 1,
			later(withNonce(in, "1764000000000000001"), "nginx:1.27", nil), "nginx:1.25", false},
		{"the text of the value Git changes (P12-7)", in, ytttest.WebImageRule(`if len(n) % 3 == 0:
  return e
end
return n`), "new spec.template.spec.containers[name=web].image", 2,
			later(in, "nginx:1.27.1", nil), "nginx:1.25", false},
		// server metadata the API server moves on by itself, which the check's "one write later"
		// redraws close to the captured values (probe13 P13-4: time bombs)
		{"the live generation (P13-4)", in, liveGated("ex.metadata.generation >= 10"), "existing metadata.generation", 1,
			later(in, "nginx:1.27", generation(10)), "nginx:1.25", false},
		{"the length of the live resourceVersion (P13-4)", in, liveGated("len(ex.metadata.resourceVersion) > 5"), "existing metadata.resourceVersion", 1,
			later(in, "nginx:1.27", func(obj map[string]any) { obj["metadata"].(map[string]any)["resourceVersion"] = "1234567" }), "nginx:1.25", false},
		{"a live managedFields time (P13-4)", in, liveGated(`[m for m in ex.metadata.managedFields if hasattr(m, "time") and m.time >= "2027-01-01"]`), "existing metadata.managedFields", 1,
			later(in, "nginx:1.27", func(obj map[string]any) {
				obj["metadata"].(map[string]any)["managedFields"].([]any)[0].(map[string]any)["time"] = "2027-01-01T00:00:00Z"
			}), "nginx:1.25", true},
		// the same, read of the object kapp rebases, into which kapp's built-in rule copied the
		// live metadata: data.values._current, a via function's left, overlay.subset
		{"the rebased object's generation, through _current", in, liveGated(`hasattr(data.values._current.metadata, "generation") and data.values._current.metadata.generation >= 10`),
			"_current metadata.generation", 1, later(in, "nginx:1.27", generation(10)), "nginx:1.25", false},
		{"the rebased object's generation, through a via function's left", in, webYTT(`
if "generation" in left["metadata"] and left["metadata"]["generation"] >= 10:
  ` + copyImage + `
end`), "left metadata.generation", 1, later(in, "nginx:1.27", generation(10)), "nginx:1.25", false},
		{"the rebased object's generation, through overlay.subset", in, strings.Replace(webYTT(copyImage), "by=overlay.all",
			`by=overlay.subset({"metadata": {"generation": 10}}), expects="0+"`, 1),
			"left metadata.generation", 1, later(in, "nginx:1.27", generation(10)), "nginx:1.25", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			rule := writeFile(t, "rule.yml", ytttest.Config(c.rule))
			// kept under either base (kapp's live base reads the live object without its status)
			if got := deployedImage(t, c.later, []string{rule}); !slices.Contains(strings.Split(got, " or "), c.kept) {
				t.Fatalf("kapp deploys %s under the rule in the state it decides on, want %s kept", got, c.kept)
			}
			if got := deployedImage(t, c.later, nil); strings.Contains(got, c.kept) || strings.Contains(got, " or ") {
				t.Fatalf("kapp deploys %s without the rule, want Git's image", got)
			}
			for range c.runs { // the same verdict on every run: the draws do not decide it
				checked, err := generator.Check(c.in, []string{generated, rule})
				if err != nil {
					t.Fatal(err)
				}
				fs := checked.Findings(verdict.Gate{})
				if !verdict.Failing(fs) {
					t.Fatalf("check passes (exit 0) under a rule deciding on %s", c.read)
				}
				var got []string
				for _, f := range fs {
					if f.Kind == verdict.KindRuleUnjudged {
						got = append(got, f.Path)
						if f.File != rule || f.Line != 4 || !strings.Contains(f.Evidence, "rebaseRules[0]") {
							t.Errorf("finding at %s:%d (%s), want the rule at %s:4", f.File, f.Line, f.Evidence, rule)
						}
					}
				}
				if len(got) != 1 || got[0] != c.read {
					t.Fatalf("rules not judged: %q, want the one reading %s", got, c.read)
				}
			}
			if c.lint { // lint --live: an error at the rule
				lints, _, err := generator.Lint(c.in, []string{generated, rule})
				if err != nil {
					t.Fatal(err)
				}
				if !slices.ContainsFunc(lints, func(f lint.Finding) bool {
					return f.Severity == lint.Error && f.File == rule && f.Line == 4 && strings.Contains(f.Message, "not judged") && strings.Contains(f.Message, c.read)
				}) {
					t.Errorf("lint --live: %+v, want an error at %s:4 naming %s", lints, rule, c.read)
				}
			}
		})
	}
}

// liveGated is a rebaseRules entry on the web Deployment replacing the manifest's containers with
// the live ones while cond, an expression of ex (the live object), holds: probe13 P13-4's rules.
func liveGated(cond string) string {
	return `- ytt:
    overlayContractV1:
      overlay.yml: |
        #@ load("@ytt:data", "data")
        #@ load("@ytt:overlay", "overlay")
        #@ ex = data.values.existing
        #@ if ` + cond + `:
        #@overlay/match by=overlay.all
        ---
        spec:
          template:
            spec:
              #@overlay/replace
              containers: #@ ex.spec.template.spec.containers
        #@ end
  resourceMatchers:
  - kindNamespaceNameMatcher: {kind: Deployment, namespace: hpa-replicas, name: web}
`
}

// deployedAs is a fixture file with its Deployment's object edited as kapp's deploy leaves it:
// the live object and kapp's last apply (kapp.k14s.io/original) alike.
func deployedAs(t *testing.T, file string, edit func(obj map[string]any)) string {
	t.Helper()
	return editedKind(t, file, "Deployment", func(u *unstructured.Unstructured) {
		edit(u.Object)
		a := u.GetAnnotations()
		var original map[string]any
		if err := json.Unmarshal([]byte(a["kapp.k14s.io/original"]), &original); err != nil {
			t.Fatal(err)
		}
		if _, ok := u.Object["metadata"].(map[string]any)["annotations"].(map[string]any)["kapp.k14s.io/nonce"]; ok {
			unstructured.SetNestedField(original, a["kapp.k14s.io/nonce"], "metadata", "annotations", "kapp.k14s.io/nonce")
		}
		if image, ok := u.Object["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["image"]; ok {
			original["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["image"] = image
		}
		bs, err := json.Marshal(original)
		if err != nil {
			t.Fatal(err)
		}
		a["kapp.k14s.io/original"] = string(bs)
		u.SetAnnotations(a)
	})
}

// TestRuleReadingWhatItWritesIsJudged: a hand-written ytt rule that copies the live value of what
// it writes, as it is, is judged by the mutation check as before: check passes.
func TestRuleReadingWhatItWritesIsJudged(t *testing.T) {
	in := fixture("hpa-replicas")
	generated, _ := generatedRules(t, in)
	rule := writeFile(t, "rule.yml", ytttest.Config(ytttest.DeploymentRule("", `spec:
  #@ if data.values.existing != None and "replicas" in data.values.existing["spec"]:
  replicas: #@ data.values.existing["spec"]["replicas"]
  #@ end`)))
	checked, err := generator.Check(in, []string{generated, rule})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range checked.Findings(verdict.Gate{}) {
		if f.Fails {
			t.Errorf("a rule copying the live replicas: %s %s %s: %s", f.Kind, f.Resource, f.Path, f.Evidence)
		}
	}
}
