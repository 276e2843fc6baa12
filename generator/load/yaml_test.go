package load

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestErrorAtExactLine: a YAML error names the line of the file holding the mistake (issue 18),
// in the first document and in a later one.
func TestErrorAtExactLine(t *testing.T) {
	head := obj("a") + "data:\n  a: b\n" // lines 1-6; line 7 holds the mistake, line 8 is fine
	for _, tc := range []struct{ name, line6 string }{
		{"unclosed flow sequence", "  g: [a, b\n"},
		{"over-indented", "    y: 2\n"},
		{"unclosed flow mapping", "  g: {a: 1\n"},
		{"unterminated double quote", "  g: \"abc\n\n"},
		{"unterminated single quote", "  g: 'abc\n"},
		{"indentation", " bad: 1\n"},
		{"sequence in a mapping", "  - a\n"},
		{"mapping value in a scalar", "  x: a: b\n"},
		{"tab indentation", "\tx: 1\n"},
	} {
		for _, before := range []string{"", obj("first") + "---\n"} { // 0 or 5 lines before
			offset := strings.Count(before, "\n")
			t.Run(fmt.Sprintf("%s after %d lines", tc.name, offset), func(t *testing.T) {
				_, err := Bytes("in.yaml", []byte(before+head+tc.line6+"  z: 1\n"))
				want := fmt.Sprintf("line %d:", 7+offset)
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("got %v, want an error at %s", err, want)
				}
			})
		}
	}
}

// TestDuplicateKeys: kapp and kubectl apply -f keep the last of two equal keys, kustomize and
// the API server's strict field validation refuse them; rebasegen refuses them naming both
// lines, as kustomize does. A key overriding one that a merge key brought in is not a duplicate.
func TestDuplicateKeys(t *testing.T) {
	for _, tc := range []struct{ name, data, want string }{
		{"top level", obj("a") + "data: {}\nkind: Secret\n",
			`in.yaml: document 1 (line 1): field kind: duplicate key "kind" at line 6, first defined at line 2`},
		{"nested, 2nd document", obj("b") + "---\n" + obj("a") + "data:\n  x: 1\n  y: 2\n  x: 3\n",
			`in.yaml: document 2 (line 5): field data.x: duplicate key "x" at line 13, first defined at line 11`},
		{"in a list item", obj("a") + "spec:\n  containers:\n  - name: a\n    image: x\n    name: b\n",
			`in.yaml: document 1 (line 1): field spec.containers[0].name: duplicate key "name" at line 9, first defined at line 7`},
		{"flow mapping", obj("a") + "data: {x: 1, x: 2}\n",
			`in.yaml: document 1 (line 1): field data.x: duplicate key "x" at line 5, first defined at line 5`},
		// probe16 P16-6: one key for kapp's YAML 1.1 reader, which kept the last silently
		{"on and \"true\"", obj("a") + "data:\n  \"true\": new\n  on: old\n",
			`in.yaml: document 1 (line 1): field data.on: duplicate key "on" at line 7, which kapp reads as "true", first defined at line 6`},
		{"1 and \"1\"", obj("a") + "data:\n  1: a\n  \"1\": b\n",
			`in.yaml: document 1 (line 1): field data.1: duplicate key "1" at line 7, first defined at line 6`},
		{"0x10 and 16", obj("a") + "data:\n  0x10: a\n  \"16\": b\n",
			`in.yaml: document 1 (line 1): field data.16: duplicate key "16" at line 7, first defined at line 6`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Bytes("in.yaml", []byte(tc.data))
			if err == nil || err.Error() != tc.want {
				t.Errorf("got %v\nwant %s", err, tc.want)
			}
		})
	}
	objs, err := Bytes("in.yaml", []byte(obj("a")+"base: &b {p: 1, q: 2}\ndata:\n  <<: *b\n  p: 3\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := objs[0].Object["data"]; fmt.Sprint(got) != "map[p:3 q:2]" {
		t.Errorf("merge key override: got %v, want map[p:3 q:2] (as kapp reads it)", got)
	}
}

// TestFlowDocumentOnSeparator: content after --- on its line is refused, as kapp refuses it,
// rather than silently dropped.
func TestFlowDocumentOnSeparator(t *testing.T) {
	_, err := Bytes("in.yaml", []byte(obj("a")+"--- {apiVersion: v1, kind: ConfigMap, metadata: {name: b}}\n"))
	want := "in.yaml: document 2 (line 5): invalid document separator"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got %v, want %s...", err, want)
	}
	if _, err := Bytes("in.yaml", []byte(obj("a")+"--- # a comment\n"+obj("b"))); err != nil {
		t.Errorf("a comment after ---: %v", err)
	}
}

// TestAliasFanOut: one 1 MB scalar aliased 1,000 times (1 GB expanded; 3.2 GB of memory and
// seconds to decode before) is refused quickly and cheaply; so is a file whose documents each
// stay within the budget but together exceed it, and inputs that together exceed MaxTotalSize.
func TestAliasFanOut(t *testing.T) {
	fanOut := func(name string, copies int) string {
		var b strings.Builder
		b.WriteString(obj(name) + "s: &s " + strings.Repeat("y", 1<<20) + "\ndata:\n")
		for i := range copies {
			fmt.Fprintf(&b, "  k%d: *s\n", i)
		}
		return b.String()
	}
	dir := t.TempDir()
	write(t, filepath.Join(dir, "fan.yaml"), fanOut("fan", 1000))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := pathsWithin(t, []string{filepath.Join(dir, "fan.yaml")})
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "fan.yaml: document 1 (line 1): aliases expand the document beyond the size limit") {
		t.Errorf("got %v", err)
	}
	// allocation, not time, so that the machine's load cannot make it fail: expanding the
	// aliases costs ~3.2 GB; refusing them reads the 1 MB document a few times
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 256<<20 {
		t.Errorf("refusing allocated %d MiB", grew>>20)
	}

	// files that fit one by one but not together, before and after expansion, and documents
	// that each fit but not together (limits lowered to keep the test quick)
	lim := limits{file: 8 << 20, total: 10 << 20}
	within := func(p string) error { _, err := docs([]string{p}, nil, lim, ""); return err }
	var many strings.Builder
	for i := range 5 {
		many.WriteString(fanOut(fmt.Sprint("m", i), 1) + "---\n")
	}
	write(t, filepath.Join(dir, "many.yaml"), many.String())
	if err := within(filepath.Join(dir, "many.yaml")); err == nil || !strings.Contains(err.Error(), "many.yaml: document 4 (line 24): aliases expand the document beyond the size limit") {
		t.Errorf("many: got %v", err)
	}
	for i := range 4 { // 3 MB each after expansion, within MaxObjectSize
		write(t, filepath.Join(dir, "all", fmt.Sprintf("%d.yaml", i)), fanOut(fmt.Sprint("t", i), 2))
	}
	if err := within(filepath.Join(dir, "all")); err == nil || !strings.Contains(err.Error(), "inputs are larger than 10 MiB in all after alias expansion") {
		t.Errorf("total after expansion: got %v", err)
	}
	big := filepath.Join(dir, "big.yaml")
	write(t, big, obj("big")+"data: {x: "+strings.Repeat("y", 6<<20)+"}\n")
	if err := totalSize(lim.total, []string{big, "-", big}); err == nil || !strings.Contains(err.Error(), "inputs are larger than 10 MiB in all") {
		t.Errorf("TotalSize: got %v", err)
	}
	if err := totalSize(lim.total, []string{big, "-"}); err != nil {
		t.Errorf("TotalSize of one file: %v", err)
	}
}

// FuzzExpansion: whatever the YAML, toJSON within a budget returns JSON of bounded size (a
// scalar's JSON escapes take at most 6 bytes per input byte) or an error, and an alias-free
// document converts as sigs.k8s.io/yaml converts it.
func FuzzExpansion(f *testing.F) {
	for _, s := range []string{
		"a: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b, *b]\n",
		"s: &s yyyyyyyyyyyyyyyy\nd: {a: *s, b: *s, c: *s, d: *s}\n",
		"a: &a {x: 1}\nb:\n  <<: *a\n  y: *a\n",
		"a: &a [*a]\n", "k: v\n", "{x: 1, x: 2}", "- &x a\n- *x\n",
	} {
		f.Add([]byte(s))
	}
	const budget = 4096
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > budget {
			return
		}
		// what another parser (ytt's, kapp's) makes of YAML Aliases lets through is bounded too:
		// sigs.k8s.io/yaml expands every alias as they do
		if doc, _ := overExpanded(data, budget); doc == 0 {
			if all, err := yaml.YAMLToJSON(data); err == nil && len(all) > 6*budget+64 {
				t.Fatalf("%d bytes of JSON from %d bytes of YAML that overExpanded lets through", len(all), len(data))
			}
		}
		js, err := toJSON(data, 1, budget)
		if err != nil {
			return
		}
		if limit := 6*budget + 64; len(js) > limit {
			t.Fatalf("%d bytes of JSON from %d bytes of YAML within a budget of %d", len(js), len(data), budget)
		}
		if !strings.ContainsAny(string(data), "&*") {
			want, err := yaml.YAMLToJSON(data)
			if err != nil || string(want) != string(js) {
				t.Fatalf("converted to %s, sigs.k8s.io/yaml to %s (%v)", js, want, err)
			}
		}
	})
}

// WithoutAliases replaces every alias where it is written, whatever precedes it on its line
// (multi-byte text, a byte order mark) and whatever ends the lines before it, and keeps every
// other byte: the result holds the same data with each alias an empty mapping.
func TestWithoutAliases(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"a: &a [1]\nb: *a\n", "a: &a [1]\nb: {}\n"},
		{"\uFEFFa: &abc é\r\nb: [é, *abc, \"*abc\"]\r\nc:\r\n  <<: *abc\r\n---\nd: &d 1\ne: *d # *d\n",
			"\uFEFFa: &abc é\r\nb: [é, {}  , \"*abc\"]\r\nc:\r\n  <<: {}  \r\n---\nd: &d 1\ne: {} # *d\n"},
		{"a: &a 1\rb: *a\u2028c: *a\n", "a: &a 1\rb: {}\u2028c: {}\n"},
		{"a: '*x'\nb: &b 1\n", "a: '*x'\nb: &b 1\n"}, // no alias
	} {
		got, ok := WithoutAliases([]byte(tc.in))
		if !ok || string(got) != tc.want {
			t.Errorf("WithoutAliases(%q) = %q, %v; want %q", tc.in, got, ok, tc.want)
		}
	}
}
