package emit

import (
	"fmt"
	"io"
	"runtime"
	"testing"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/pair"
)

// The text of explain grows linearly with a resource's fields: each row of a resource laid out
// for a narrow terminal was concatenated onto the rows before it, which copied them all again
// (4,000 controller-owned annotations: most of explain's time). Work is counted in bytes
// allocated, which do not depend on the machine's load.
func TestExplainTextWorkLinear(t *testing.T) {
	allocated := func(n int) float64 {
		var fs []classify.Finding
		for i := range n {
			fs = append(fs, classify.Finding{Path: fielddiff.FromFields([]string{"metadata", "annotations", fmt.Sprintf("ctrl.example.com/key-%05d", i)}),
				Class: classify.Controller, Owner: "my-controller", Live: "value", Evidence: "managedFields: manager my-controller, operation Update, at 2026-11-22T04:40:51Z"})
		}
		rep := &classify.Report{Resources: []classify.Resource{{
			Pair:    pair.Pair{ID: pair.Identity{Kind: "ConfigMap", Namespace: "ns", Name: "big"}, Live: load.Doc{APIVersion: "v1"}},
			Applier: "kapp", Findings: fs,
		}}}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if err := WriteExplainText(io.Discard, rep, Palette{}, 80); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		return float64(after.TotalAlloc - before.TotalAlloc)
	}
	small, large := allocated(1000), allocated(4000)
	t.Logf("%.1f MB allocated for 1,000 fields, %.1f MB for 4,000", small/1e6, large/1e6)
	if ratio := large / small; ratio > 5 {
		t.Errorf("4x the fields cost %.1fx the bytes allocated (%.0f MB vs %.0f MB): superlinear", ratio, large/1e6, small/1e6)
	}
}
