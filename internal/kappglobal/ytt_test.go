package kappglobal

import (
	"testing"

	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"carvel.dev/kapp/pkg/kapp/yttresmod"
)

// The memo answers a repeated evaluation; turned off, ytt runs every time, as in kapp.
func TestMemoizeYTT(t *testing.T) {
	mod := SerialYTT(yttresmod.OverlayContractV1Mod{
		ResourceMatcher: ctlres.AllMatcher{},
		OverlayYAML: `#@ load("@ytt:overlay", "overlay")
#@overlay/match by=overlay.all
---
metadata:
  #@overlay/match missing_ok=True
  labels:
    #@overlay/match missing_ok=True
    x: "1"
`,
	})
	eval := func() string {
		res, err := ctlres.NewResourceFromBytes([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: ns}\n"))
		if err != nil {
			t.Fatal(err)
		}
		if err := mod.ApplyFromMultiple(res, map[ctlres.FieldCopyModSource]ctlres.Resource{}); err != nil {
			t.Fatal(err)
		}
		return res.Labels()["x"]
	}
	for _, tc := range []struct {
		on           bool
		hits, misses int64
	}{{true, 1, 1}, {false, 0, 2}} {
		ResetYTTMemo()
		restore := MemoizeYTT(tc.on)
		for range 2 {
			if got := eval(); got != "1" {
				t.Fatalf("memo %v: label x = %q, want the overlay's 1", tc.on, got)
			}
		}
		restore()
		if hits, misses := YTTMemoStats(); hits != tc.hits || misses != tc.misses {
			t.Errorf("memo %v: %d hits, %d misses; want %d, %d", tc.on, hits, misses, tc.hits, tc.misses)
		}
	}
	if yttResults.off.Load() {
		t.Error("restore left the memo off")
	}
}
