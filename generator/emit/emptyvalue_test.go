package emit

import (
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/pair"
)

// An empty string reads as a value in explain's text, "" as in the JSON output: a hostPath.type
// the server defaulted to "" printed as nothing ("- -> "), which read as a value cut off
// (newcomer7 N7-9 b).
func TestExplainTextShowsEmptyString(t *testing.T) {
	rep := &classify.Report{Resources: []classify.Resource{{
		Pair: pair.Pair{ID: pair.Identity{Group: "apps", Kind: "DaemonSet", Namespace: "ns", Name: "agent"}, Live: load.Doc{APIVersion: "apps/v1"}},
		Findings: []classify.Finding{{Path: fielddiff.FromFields([]string{"spec", "type"}), Class: classify.Defaulted, Live: "",
			Evidence: "defaulting"}},
	}}}
	for _, width := range []int{0, 60} {
		var b strings.Builder
		if err := WriteExplainText(&b, rep, Palette{}, width); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), `- -> ""`) {
			t.Errorf("width %d: want - -> \"\":\n%s", width, b.String())
		}
	}
}
