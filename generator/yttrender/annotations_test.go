package yttrender

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator/load"
)

// aliased is a ytt template of a few hundred bytes whose aliases expand to 10^levels scalars:
// within load.Aliases' bound, and ytt's parser, which expands every alias, builds a node for each.
func aliased(levels int, head string) string {
	b := head + "a0: &a0 [x,x,x,x,x,x,x,x,x,x]\n"
	for i := 1; i < levels; i++ {
		b += fmt.Sprintf("a%d: &a%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*a%d,", i-1), 10), ","))
	}
	return b
}

// Sniffing a file for ytt annotations (a --rules file or directory, a rules Secret's keys, the
// hint for a missing data value) runs in this process, unbounded by the render's limits: it must
// not expand the aliases. A 500-byte file within load.Aliases' bound (10^7 values) took 3 min and
// 4.4 GB to sniff; the work must be that of the file, not of its expansion.
func TestSniffingAnnotationsDoesNotExpandAliases(t *testing.T) {
	const overlay = "#@ load(\"@ytt:overlay\", \"overlay\")\n#@overlay/match by=overlay.all\n---\n"
	small, large := aliased(2, overlay), aliased(5, overlay) // 10^2 and 10^5 values
	if err := load.Aliases("f.yml", []byte(large)); err != nil {
		t.Fatalf("the test's file must be within the bound: %v", err)
	}
	work := func(data string) uint64 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		if !HasYTTAnnotations("f.yml", []byte(data)) || ChangesOtherFiles("f.yml", []byte(data)) != "ytt overlays" {
			t.Errorf("no overlay found in\n%s", data)
		}
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	s, l := work(small), work(large)
	if l > 4*s+1<<20 { // 1,000 times the values, about as many bytes
		t.Errorf("sniffing 10^5 aliased values allocated %d bytes, 10^2 %d: it expands the aliases", l, s)
	}
}

// Annotations are still read as ytt's parser reads them where aliases are: after "---", merge
// keys, aliases in flow and block collections, CRLF line ends and multi-byte text before an
// alias; "#@" in a block scalar (a kapp Config's ytt rebase rule) is no annotation.
func TestAnnotationsAmongAliases(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		want       []string
	}{
		{"after ---", "--- #@ load(\"@ytt:overlay\", \"overlay\")\nbase: &b {x: 1}\nm:\n  <<: *b\n  l: [*b, é, *b]\n", []string{` load("@ytt:overlay", "overlay")`}},
		{"CRLF and multi-byte", "a: &a ü\r\nb: [é, *a] #@ x\r\nc:\r\n- *a\r\n", []string{" x"}},
		{"block scalar", "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nm: &m [{kind: Service}]\nrebaseRules:\n- ytt:\n    overlayContractV1:\n      overlay.yml: |\n        #@ load(\"@ytt:overlay\", \"overlay\")\n  resourceMatchers: *m\n", nil},
	} {
		if _, ok := load.WithoutAliases([]byte(tc.data)); !ok {
			t.Errorf("%s: aliases not found", tc.name)
		}
		if got := yttAnnotations("f.yml", []byte(tc.data)); fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: annotations %q, want %q", tc.name, got, tc.want)
		}
	}
}
