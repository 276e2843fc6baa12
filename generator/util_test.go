package generator_test

import (
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/load"
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

// writeFile writes content to a file named name in a temporary directory and returns its path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(f, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}
