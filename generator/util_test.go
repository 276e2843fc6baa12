package generator_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	ctldiff "carvel.dev/kapp/pkg/kapp/diff"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/emit"
	"github.com/rebasegen/rebasegen/generator/internal/kapptest"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/synth"
	"github.com/rebasegen/rebasegen/generator/yttrender"
)

func unstructuredOf(objs []load.Object) []*unstructured.Unstructured {
	out := make([]*unstructured.Unstructured, len(objs))
	for i, o := range objs {
		out[i] = o.Unstructured
	}
	return out
}

func loadValues(kv ...string) yttrender.Package { return yttrender.Package{Values: kv} }

// fixture is a captured scenario's inputs: its desired.yaml and live.yaml, in its namespace
// (every scenario's namespace is its name).
func fixture(name string) generator.Inputs {
	dir := filepath.Join("..", "fixtures", name)
	return generator.Inputs{Desired: []string{filepath.Join(dir, "desired.yaml")}, Live: []string{filepath.Join(dir, "live.yaml")}, Namespace: name}
}

// classicRules is the hand-written fix for an autoscaled Deployment: spec.replicas from the
// cluster, for every Deployment.
const classicRules = "../fixtures/lint/hpa-replicas-all-deployments/rules.yml"

// editedFixture writes the objects of a fixture file that edit keeps (returns true for), each as
// edit changed it, to a file of the same name in a temporary directory, and returns its path.
func editedFixture(t *testing.T, file string, edit func(*unstructured.Unstructured) bool) string {
	t.Helper()
	objs, err := load.Paths([]string{file}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []byte
	for _, o := range objs {
		if !edit(o.Unstructured) {
			continue
		}
		bs, err := yaml.Marshal(o.Object)
		if err != nil {
			t.Fatal(err)
		}
		out = append(append(out, "---\n"...), bs...)
	}
	return writeFile(t, filepath.Base(file), string(out))
}

// imageBumped is in with its manifest's image nginx:1.25 changed to nginx:1.27 in Git.
func imageBumped(t *testing.T, in generator.Inputs) generator.Inputs {
	t.Helper()
	manifest, err := os.ReadFile(in.Desired[0])
	if err != nil {
		t.Fatal(err)
	}
	bumped := strings.Replace(string(manifest), "nginx:1.25", "nginx:1.27", 1)
	if bumped == string(manifest) {
		t.Fatal("the fixture's image is not nginx:1.25")
	}
	in.Desired = []string{writeFile(t, "bumped.yaml", bumped)}
	return in
}

// editedKind is a fixture file with its objects of kind (every object where kind is "") changed
// by edit, in a file of the same name in a temporary directory.
func editedKind(t *testing.T, file, kind string, edit func(*unstructured.Unstructured)) string {
	t.Helper()
	return editedFixture(t, file, func(u *unstructured.Unstructured) bool {
		if kind == "" || u.GetKind() == kind {
			edit(u)
		}
		return true
	})
}

// fixtureEdited is fixture(name), its manifest's objects of kind (every object where kind is "")
// changed by edit: a pull request against the captured live objects.
func fixtureEdited(t *testing.T, name, kind string, edit func(*unstructured.Unstructured)) generator.Inputs {
	t.Helper()
	in := fixture(name)
	in.Desired = []string{editedKind(t, in.Desired[0], kind, edit)}
	return in
}

// fixtureObject is the object named name of a fixture file, changed by edit, alone in a file.
func fixtureObject(t *testing.T, file, name string, edit func(map[string]any)) string {
	t.Helper()
	found := false
	f := editedFixture(t, file, func(u *unstructured.Unstructured) bool {
		if u.GetName() != name {
			return false
		}
		found = true
		edit(u.Object)
		return true
	})
	if !found {
		t.Fatalf("%s: no object %s", file, name)
	}
	return f
}

// setInOriginal sets value at fields in u's kapp.k14s.io/original (what kapp last applied).
func setInOriginal(t *testing.T, u *unstructured.Unstructured, value any, fields ...string) {
	t.Helper()
	annotations := u.GetAnnotations()
	var original unstructured.Unstructured
	if err := original.UnmarshalJSON([]byte(annotations["kapp.k14s.io/original"])); err != nil {
		t.Fatal(err)
	}
	_ = unstructured.SetNestedField(original.Object, value, fields...)
	bs, err := original.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	annotations["kapp.k14s.io/original"] = string(bs)
	u.SetAnnotations(annotations)
}

// writeFile writes content to a file named name in a temporary directory and returns its path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(f, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// generatedText is the rules generate writes for in, its header recording the options given.
func generatedText(t *testing.T, in generator.Inputs, recorded emit.Options) (string, *generator.Generated) {
	t.Helper()
	g, err := generator.Generate(in, synth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := emit.WriteRules(&b, g.Rules, emit.Header{Version: "test", Options: recorded}); err != nil {
		t.Fatal(err)
	}
	return b.String(), g
}

// given is what generate records of in's inputs when given them as flags.
func given(in generator.Inputs) emit.Options {
	return emit.Options{Desired: in.Desired, Live: in.Live, Namespace: in.Namespace}
}

// generatedRules generates rules for in and writes them to a file.
func generatedRules(t *testing.T, in generator.Inputs) (string, *generator.Generated) {
	t.Helper()
	text, g := generatedText(t, in, emit.Options{Namespace: in.Namespace})
	return writeFile(t, "rules.yml", text), g
}

// removalsHidden are the removals made in Git c reports hidden, each as "name path".
func removalsHidden(c *generator.Checked) []string {
	var out []string
	for _, h := range c.Hidden {
		if h.Removed {
			out = append(out, h.Resource.Name+" "+h.Path)
		}
	}
	return out
}

// webYTT is a rebaseRules entry: a ytt rule on fixtures/hpa-replicas' Deployment web, matched by
// its identity, replacing the object kapp applies with keep's (keepYTT).
func webYTT(body string) string {
	return keepYTT(body, "kindNamespaceNameMatcher: {kind: Deployment, namespace: hpa-replicas, name: web}")
}

// keepYTT is a rebaseRules entry: a ytt rule on what matcher (a resourceMatchers item) selects,
// replacing the object kapp applies with keep's. keep runs body (Starlark lines, unindented)
// with obj, a copy of the manifest's object, and ex, the live one (None before the first
// deploy), and returns obj.
func keepYTT(body, matcher string) string {
	var lines strings.Builder
	for _, l := range strings.Split(strings.TrimSpace(body), "\n") {
		lines.WriteString("        #@   " + l + "\n")
	}
	return `- ytt:
    overlayContractV1:
      overlay.yml: |
        #@ load("@ytt:data", "data")
        #@ load("@ytt:json", "json")
        #@ load("@ytt:overlay", "overlay")
        #@ def keep(left, right):
        #@   obj = json.decode(json.encode(left))
        #@   ex = data.values.existing
` + lines.String() + `        #@   return obj
        #@ end
        #@overlay/match by=overlay.all
        #@overlay/replace via=keep
        ---
  resourceMatchers:
  - ` + matcher + "\n"
}

// deployedImage is the image fixtures/hpa-replicas' Deployment runs once kapp deploys in under
// rules (kapp's deploy diff under both bases, kapptest.BothBases): the one kapp applies, or the live one
// where kapp applies nothing; "A or B" where the bases disagree.
func deployedImage(t *testing.T, in generator.Inputs, rules []string) string {
	t.Helper()
	image := ""
	for _, ch := range kapptest.BothBases(t, in.Desired, in.Live[0], in.Namespace, rules) {
		res := ch.NewOrExistingResource()
		if res.Kind() != "Deployment" {
			continue
		}
		if ch.Op() != ctldiff.ChangeOpUpdate {
			res = ch.ExistingResource()
		}
		containers, _, _ := unstructured.NestedSlice(res.UnstructuredObject(), "spec", "template", "spec", "containers")
		got, _ := containers[0].(map[string]any)["image"].(string)
		if image != "" && image != got {
			return image + " or " + got
		}
		image = got
	}
	return image
}
