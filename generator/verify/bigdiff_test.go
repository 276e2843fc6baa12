package verify

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	ctldiff "carvel.dev/kapp/pkg/kapp/diff"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"github.com/carvel-dev/difflib"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/internal/kappglobal"
)

// TestLineDiffIsDifflibs: the diff computed here is difflib's, record for record, on texts with
// lines repeated, moved, added and removed, of lengths across the checkpoint rows' spacing and
// the bit vectors' words.
func TestLineDiffIsDifflibs(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 400 {
		left, right := randomLines(rng, rng.IntN(150)), []string(nil)
		for _, l := range left {
			switch rng.IntN(6) {
			case 0: // removed
			case 1:
				right = append(right, l, fmt.Sprint("added ", rng.IntN(5)))
			default:
				right = append(right, l)
			}
		}
		if n%3 == 0 {
			rng.Shuffle(len(right), func(i, j int) { right[i], right[j] = right[j], right[i] })
		}
		if want, got := difflib.Diff(left, right), lineDiff(left, right); !reflect.DeepEqual(got, want) && (len(got) != 0 || len(want) != 0) {
			t.Fatalf("case %d:\nleft %q\nright %q\ndifflib %v\nhere    %v", n, left, right, want, got)
		}
	}
}

func randomLines(rng *rand.Rand, n int) []string {
	var lines []string
	for range n {
		lines = append(lines, fmt.Sprint("line ", rng.IntN(n/2+1)))
	}
	return lines
}

// TestBigUpdateIsKapps: a ConfigMap of a thousand keys and more, values changed here and there: the
// op and the diff text computed here are kapp's own (ChangeImpl.Op, TextDiffView.String).
func TestBigUpdateIsKapps(t *testing.T) {
	kappglobal.Prepare()
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		name        string
		annotations map[string]any
		changed     int
	}{{"changed", nil, 40}, {"unchanged", nil, 0}, {"exists", map[string]any{ctlres.ExistsAnnKey: ""}, 40}, {"noop", map[string]any{ctlres.NoopAnnKey: ""}, 40}} {
		data, changed := map[string]any{}, map[string]any{}
		for i := range 1500 {
			k := fmt.Sprintf("key%05d", i) // go-yaml orders these keys the same way each time

			data[k], changed[k] = fmt.Sprint(i), fmt.Sprint(i)
			if rng.IntN(1500) < tc.changed {
				changed[k] = fmt.Sprint("changed ", i)
			}
		}
		metadata := map[string]any{"name": "big", "namespace": "ns"}
		if tc.annotations != nil {
			metadata["annotations"] = tc.annotations
		}
		existing := ctlres.NewResourceUnstructured(unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "big", "namespace": "ns"}, "data": data}}, ctlres.ResourceType{})
		updated := ctlres.NewResourceUnstructured(unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata, "data": changed}}, ctlres.ResourceType{})
		ch := ctldiff.NewChange(existing, updated, updated, existing, ctldiff.ChangeOpts{})
		if big, _, _, err := bigUpdate(ch); err != nil || !big {
			t.Fatalf("%s: not computed here (%v)", tc.name, err)
		}
		op, err := changeOp(ch)
		if err != nil {
			t.Fatal(err)
		}
		if want := ctldiff.NewChange(existing, updated, updated, existing, ctldiff.ChangeOpts{}).Op(); op != want {
			t.Errorf("%s: op %s, kapp's %s", tc.name, op, want)
		}
		rules := []ctldiff.TextDiffViewOpts{diffViewOpts, {Context: -1}, {Context: 0, LineNumbers: true}}
		for _, opts := range rules {
			maskMu.Lock()
			got, ok, err := bigTextDiff(ch, nil, opts)
			want := ctldiff.NewTextDiffView(ctldiff.NewChange(existing, updated, updated, existing, ctldiff.ChangeOpts{}).ConfigurableTextDiff(), nil, opts).String()
			maskMu.Unlock()
			if err != nil || !ok {
				t.Fatalf("%s: %v %v", tc.name, ok, err)
			}
			if got != want {
				t.Errorf("%s, %+v: diff text\n%.2000s\nkapp's\n%.2000s", tc.name, opts, got, want)
			}
		}
	}
}
