package yttrender

import (
	"path/filepath"
	"testing"

	"github.com/rebasegen/rebasegen/generator/load"
)

// Each node of a rendered document is found at the template line that wrote it (lines counted by
// hand): a value a Starlark expression built at the expression's line, a field the template does
// not declare at its nearest parent's, a document a file holds whole at its first line; a document
// whose object is no longer the one rendered (as many nodes, other keys) is found nowhere.
func TestWrittenAt(t *testing.T) {
	dir := t.TempDir()
	app := writeFile(t, filepath.Join(dir, "config", "app.yml"), `#@ def labels():
app: web
tier: #@ "front"
#@ end
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: web
  labels: #@ labels()
  annotations: #@ {"owner": "shop", "list": ["a", "b"]}
data:
  zeta: "1"
  alpha: "2"
`)
	plain := writeFile(t, filepath.Join(dir, "config", "plain.yml"), "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n")
	docs, err := Package{Dirs: []string{filepath.Join(dir, "config")}}.RenderInput(nil)
	if err != nil || len(docs) != 2 {
		t.Fatalf("%d documents, %v", len(docs), err)
	}
	cm, secret := docs[0], docs[1]
	cm.Namespace = "shop" // as pairing gives it the install namespace: the decoded object holds it
	for _, c := range []struct {
		d    load.Doc
		path []any
		file string
		line int
	}{
		{cm, nil, app, 5},
		{cm, []any{"data", "alpha"}, app, 14},
		{cm, []any{"data", "zeta"}, app, 13},
		{cm, []any{"metadata", "labels", "app"}, app, 2},
		{cm, []any{"metadata", "labels", "tier"}, app, 3},
		{cm, []any{"metadata", "annotations", "list", 1}, app, 11},
		{cm, []any{"metadata", "namespace"}, app, 8},
		{cm, []any{"spec", "missing"}, app, 5},
		{secret, nil, plain, 1},
		{secret, []any{"metadata", "name"}, plain, 4},
	} {
		if got, ok := c.d.WrittenAt(c.path...); !ok || got.File != c.file || got.Line != c.line {
			t.Errorf("%s %v: got %s:%d (%v), want %s:%d", c.d.Kind, c.path, got.File, got.Line, ok, c.file, c.line)
		}
	}
	other, err := load.ParseDocs("other", []byte(`apiVersion: v1
kind: ConfigMap
metadata:
  name: web
  labels: {app: web, tier: front}
  annotations: {owner: shop, list: [a, b]}
data:
  beta: "1"
  alpha: "2"
`))
	if err != nil {
		t.Fatal(err)
	}
	other[0].Source.Written = cm.Source.Written
	if got, ok := other[0].WrittenAt("data", "alpha"); ok {
		t.Errorf("another object: found at %s:%d", got.File, got.Line)
	}
}
