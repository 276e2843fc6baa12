package yttrender

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/internal/child"
)

const pkgDir = "../../fixtures/packages/hpa-web"

// The package renders, with its values, to exactly the manifests the hpa-replicas scenario
// deployed: same objects as reading desired.yaml.
func TestPackageRendersLikeTheDeployedManifests(t *testing.T) {
	want, err := load.Paths([]string{"../../fixtures/hpa-replicas/desired.yaml"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, p := range map[string]Package{
		"directory":  {Dirs: []string{pkgDir + "/config"}, ValuesFiles: []string{pkgDir + "/values.yml"}},
		"package-cr": {CR: pkgDir + "/package.yml", Values: []string{"image=nginx:1.25"}},
	} {
		docs, err := p.Render(nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := load.Objects(docs)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d objects, want %d", name, len(got), len(want))
		}
		for i := range want {
			if !reflect.DeepEqual(got[i].Object, want[i].Object) {
				t.Errorf("%s: object %d differs:\n got %v\nwant %v", name, i, got[i].Object, want[i].Object)
			}
		}
	}
}

func TestPackageErrors(t *testing.T) {
	dir := t.TempDir()
	remote := filepath.Join(dir, "remote.yml")
	os.WriteFile(remote, []byte(`apiVersion: data.packaging.carvel.dev/v1alpha1
kind: Package
metadata: {name: x.1.0.0}
spec:
  template:
    spec:
      fetch: [{imgpkgBundle: {image: registry.example/x@sha256:abc}}]
      template: [{ytt: {}}]
`), 0o644)
	for name, tc := range map[string]struct {
		p    Package
		want string
	}{
		"image fetch is out of scope": {Package{CR: remote}, "fetch[0] is imgpkgBundle: only inline fetches can be rendered offline"},
		"ytt error as ytt prints it":  {Package{Dirs: []string{pkgDir + "/config"}, Values: []string{"replicas=oops"}}, "One or more data values were invalid"},
		"missing directory":           {Package{Dirs: []string{filepath.Join(dir, "nope")}}, "reading package"},
		"not a Package":               {Package{CR: pkgDir + "/values.yml"}, "not a data.packaging.carvel.dev/v1alpha1 Package"},
	} {
		_, err := tc.p.Render(nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: want error containing %q, got %v", name, tc.want, err)
		}
	}
}

// TestRenderBounded (issue 12 item 5): a package that renders for too long, more than an input
// file may hold, or in more memory than its budget, is an error naming it: in a render child
// (RenderChild, as the rebasegen command renders) and in the process itself (a program using the
// library without it).
func TestRenderBounded(t *testing.T) {
	if os.Getenv("REBASEGEN_TEST_RENDER_BOUNDED") == "" {
		// ytt cannot be cancelled: the renders this test abandons go on (an endless loop on a core,
		// a template allocating 300 MB). They run in a process of their own, which ends with the
		// test, so that no later test shares a process with them (under -race TestAliasFanOut
		// counted the abandoned render's 470 MiB as its own allocation).
		cmd := exec.Command(os.Args[0], "-test.run=^TestRenderBounded$", "-test.v")
		cmd.Env = append(os.Environ(), "REBASEGEN_TEST_RENDER_BOUNDED=1")
		if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "--- PASS: TestRenderBounded") {
			t.Fatalf("%v\n%s", err, out)
		}
		return
	}
	if childRenders.Load() {
		t.Run("child", testRenderBounded)
	} else if child.Bounded {
		t.Fatal("TestMain did not call RenderChild")
	}
	childRenders.Store(false)
	defer childRenders.Store(true)
	t.Run("in-process", testRenderBounded)
}

func testRenderBounded(t *testing.T) {
	dir := t.TempDir()
	loop := filepath.Join(dir, "loop")
	big := filepath.Join(dir, "big")
	for p, tpl := range map[string]string{
		loop: "#@ for i in range(1000000000):\n#@ for j in range(1000000000):\n#@ end\n#@ end\n" + "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
		big:  "#@ s = \"y\" * (1 << 20)\n#@ for i in range(3):\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: #@ \"c\" + str(i)\ndata:\n  s: #@ s\n#@ end\n",
	} {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, "t.yml"), []byte(tpl), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	_, err := Package{Dirs: []string{loop}}.runWithin(nil, documents, renderLimits{2 * time.Second, load.MaxFileSize, RenderMemory})
	if err == nil || !strings.Contains(err.Error(), "rendering package "+loop+" with ytt: not done after 2s") || time.Since(start) > 10*time.Second {
		t.Errorf("endless loop: got %v after %v", err, time.Since(start))
	}
	_, err = Package{Dirs: []string{big}}.runWithin(nil, documents, renderLimits{time.Minute, 2 << 20, RenderMemory})
	if err == nil || !strings.Contains(err.Error(), "rendering package "+big+" with ytt: the output is larger than 2 MiB") {
		t.Errorf("3 MB output: got %v", err)
	}
	// 300 strings of 1 MB, each kept: the render is abandoned at 64 MiB, long before it ends (the
	// output would be over the 64 MiB output limit too, and the error would say so)
	hog := filepath.Join(dir, "hog")
	if err := os.MkdirAll(hog, 0o755); err != nil {
		t.Fatal(err)
	}
	tpl := "#@ for i in range(300):\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: #@ \"c\" + str(i)\ndata:\n  s: #@ str(i) + (\"y\" * (1 << 20))\n#@ end\n"
	if err := os.WriteFile(filepath.Join(hog, "t.yml"), []byte(tpl), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Package{Dirs: []string{hog}}.runWithin(nil, documents, renderLimits{time.Minute, load.MaxFileSize, 64 << 20})
	if err == nil || !strings.Contains(err.Error(), "rendering package "+hog+" with ytt: it needs more than 64 MiB of memory") {
		t.Errorf("300 strings of 1 MB: got %v", err)
	}
}

// TestRenderChildSameAsInProcess: a package renders to the same bytes, and fails with the same
// message, in a render child as in the process itself.
func TestRenderChildSameAsInProcess(t *testing.T) {
	if !childRenders.Load() {
		t.Skip("no render child on this OS")
	}
	for _, p := range []Package{
		{Dirs: []string{pkgDir + "/config"}, ValuesFiles: []string{pkgDir + "/values.yml"}},
		{Dirs: []string{pkgDir + "/config"}, Values: []string{"replicas=oops"}},
		{Dirs: []string{"no-such-package"}},
	} {
		for _, y := range []yield{documents, positioned, dataValues} {
			c, childErr := p.run(nil, y)
			name, child := c.name, c.yaml
			childRenders.Store(false)
			o, ownErr := p.run(nil, y)
			name2, own := o.name, o.yaml
			childRenders.Store(true)
			if name != name2 || !bytes.Equal(child, own) || !reflect.DeepEqual(c.from, o.from) || fmt.Sprint(childErr) != fmt.Sprint(ownErr) {
				t.Errorf("%+v yield %v: child %q %q %+v %v, in-process %q %q %+v %v", p, y, name, child, c.from, childErr, name2, own, o.from, ownErr)
			}
			if y == positioned && childErr == nil && (len(c.from) == 0 || c.from[0].Written == nil) {
				t.Errorf("%+v: no positions", p)
			}
			if y == dataValues && childErr == nil && len(child) == 0 {
				t.Errorf("%+v: no data values", p)
			}
		}
	}
}

// A template reading a data value nobody gave is one line naming the file, the line and the value
// to pass (or, with a data values schema, that the schema lacks it): ytt's own message was its
// call stack over several lines, with no word of --value. Other errors stay ytt's.
func TestMissingDataValueIsOneLine(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string { return writeFile(t, filepath.Join(dir, name), text) }
	const header = "#@ load(\"@ytt:data\", \"data\")\napiVersion: v1\nkind: ConfigMap\nmetadata:\n"
	rules := write("rules.yml", header+"  name: x\n  namespace: #@ data.values.namespace\n")
	nested := write("nested.yml", header+"  name: #@ data.values.app.name\n")
	schemaDir := filepath.Join(dir, "pkg")
	write("pkg/schema.yml", "#@data/values-schema\n---\nname: web\n")
	app := write("pkg/app.yml", header+"  name: #@ data.values.nam\n")
	other := write("other.yml", "#@ load(\"@ytt:struct\", \"struct\")\nname: #@ struct.make(a=1).b\n")
	for _, tc := range []struct {
		name string
		p    Package
		want string
	}{
		{"rules file", Package{Dirs: []string{rules}, What: "rules file"}, rules + `:6: needs data value "namespace": pass --value namespace=...`},
		{"nested value", Package{Dirs: []string{nested}, Values: []string{"app.image=x"}}, nested + `:5: needs data value "app.name": pass --value app.name=...`},
		{"schema", Package{Dirs: []string{schemaDir}}, app + `:5: reads data value "nam" (ytt: did you mean .name?), which the data values schema (` + filepath.Join(schemaDir, "schema.yml") + `) does not declare`},
	} {
		_, err := tc.p.Render(nil)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: got %v\nwant %s", tc.name, err, tc.want)
		}
	}
	// a rules Secret's rebase-rules.yml: its line in the text
	_, err := Package{}.RenderFiles(nil, "secret.yml (Secret x)", []Template{{Source: "secret.yml (rebase-rules.yml)", Name: "rebase-rules.yml", Data: []byte(header + "  name: #@ data.values.name\n")}})
	if want := `secret.yml (rebase-rules.yml) line 5: needs data value "name": pass --value name=...`; err == nil || err.Error() != want {
		t.Errorf("template: got %v\nwant %s", err, want)
	}
	// not a data value: ytt's message, as ytt prints it
	if _, err := (Package{Dirs: []string{other}}).Render(nil); err == nil || !strings.Contains(err.Error(), "with ytt:\n") || !strings.Contains(err.Error(), "struct has no .b field or method") {
		t.Errorf("another struct's missing field: %v", err)
	}
}

// probe16 P16-3: ytt's data-value errors quote the offending line of a values file or a
// --value-yaml argument, and a value meant for a Secret (a password of the wrong type, or under
// a misspelt key) was printed in clear. The line is withheld; the file, its line number and
// ytt's finding stay. A template's own lines are still quoted.
func TestDataValueErrorsWithholdTheValues(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string { return writeFile(t, filepath.Join(dir, name), text) }
	pkg := filepath.Dir(write("pkg/schema.yml", "#@data/values-schema\n---\ndb:\n  user: app\n  password: \"\"\n"))
	write("pkg/secret.yml", "#@ load(\"@ytt:data\", \"data\")\napiVersion: v1\nkind: Secret\nmetadata: {name: db}\nstringData:\n  password: #@ data.values.db.password\n")
	for _, tc := range []struct {
		name, secret, want string
		p                  Package
	}{
		{"wrong type in a file", "90210735", "values.yml:\n    |\n  3 | ", Package{ValuesFiles: []string{write("values.yml", "db:\n  user: app\n  password: 90210735\n")}}},
		{"misspelt key in a file", "s3cr3t-Pa55w0rd", "typo.yml:\n    |\n  3 | ", Package{ValuesFiles: []string{write("typo.yml", "db:\n  user: app\n  pasword: \"s3cr3t-Pa55w0rd\"\n")}}},
		{"--value-yaml", "90210735", "(data-value-yaml arg):\n    |\n  1 | ", Package{ValuesYAML: []string{"db.password=90210735"}}},
	} {
		tc.p.Dirs = []string{pkg}
		_, err := tc.p.Render(nil)
		if err == nil || strings.Contains(err.Error(), tc.secret) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error naming %q without %q", tc.name, err, tc.want, tc.secret)
		}
	}
	write("bad/app.yml", "#@ x = 1 +\napiVersion: v1\n")
	if _, err := (Package{Dirs: []string{filepath.Join(dir, "bad")}}).Render(nil); err == nil || !strings.Contains(err.Error(), "app.yml:2 | apiVersion: v1") {
		t.Errorf("a template's error: got %v, want its line quoted", err)
	}
}

// writeFile writes text to f, making its directory, and returns f.
func writeFile(t *testing.T, f, text string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}
