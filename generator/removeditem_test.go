package generator_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/emit"
)

// A port the manifest declares without a protocol and the live Service lacks (fixtures/services'
// web Service with a port added to the desired copy): its path's key holds the protocol
// structured-merge-diff defaults, TCP; explain shows the declared item, not "- -> -".
func TestRemovedItemWithDefaultedKeyShowsDeclaredValue(t *testing.T) {
	dir := filepath.Join("..", "fixtures", "services")
	desired := fixtureObject(t, filepath.Join(dir, "desired.yaml"), "web", func(o map[string]any) {
		spec := o["spec"].(map[string]any)
		spec["ports"] = append(spec["ports"].([]any), map[string]any{"name": "admin", "port": int64(9191)})
	})
	rep, _, err := generator.Explain(generator.Inputs{Desired: []string{desired}, Live: []string{filepath.Join(dir, "live.yaml")}, Namespace: "services"})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := emit.WriteExplainText(&out, rep, emit.Palette{}, 200); err != nil {
		t.Fatal(err)
	}
	var row string
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.Contains(l, "port=9191") {
			row = l
		}
	}
	if !strings.Contains(row, "port=9191,protocol=TCP") || !strings.Contains(row, `{"name":"admin","port":9191} -> -`) {
		t.Errorf("want the removed port's row to show the declared item, got %q in:\n%s", row, out.String())
	}
}
