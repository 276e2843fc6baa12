package emit

import (
	"encoding/base64"
	"strings"

	"github.com/rebasegen/rebasegen/internal/kappglobal"
)

// kapp's engine runs a ytt rule with the same resource and a live object differing only where the
// program never looks: under the last-applied base with kapp's history annotations, under the
// live base without them. The memo (kappglobal) keys an evaluation of a program written here on
// what it reads of each source. kappglobal cannot import this package (emit -> synth -> classify
// -> kappglobal), so it is told here.
func init() { kappglobal.YTTReads(OverlayReads) }

// OverlayReads returns the top-level fields of each source (data.values.SOURCE) overlay reads, if
// overlay is exactly the program overlay writes for its data; false for any other program (a
// hand-written rule, kapp's own).
func OverlayReads(overlay string) (map[string][]string, bool) {
	head, _, _ := strings.Cut(yttHead, "RULES")
	rest, found := strings.CutPrefix(overlay, head)
	if !found {
		return nil, false
	}
	b64, _, _ := strings.Cut(rest, `"`)
	js, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return nil, false
	}
	prog, reads, ok := program(js)
	if !ok || prog != overlay {
		return nil, false
	}
	return reads, true
}
