package emit

import (
	"strings"
	"testing"

	ctlres "carvel.dev/kapp/pkg/kapp/resources"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/generator/synth"
)

// TestGeneratedCommentsHoldNoBidiControls (issue 12 item 6): a resource name or evidence with a
// right-to-left override reaches the rules' comments without it.
func TestGeneratedCommentsHoldNoBidiControls(t *testing.T) {
	rule := synth.Rule{Classes: []classify.Class{classify.Defaulted}, Resources: []pair.Identity{{Kind: "ConfigMap", Namespace: "ns", Name: "a\u202egnp.exe"}},
		Evidence: []string{"manager \u2066evil\u2069"}, Sources: []ctlres.FieldCopyModSource{"new", "existing"}, Paths: [][]string{{"data"}},
		Matchers: []synth.Matcher{{APIVersionKind: &synth.APIVersionKind{APIVersion: "v1", Kind: "ConfigMap"}}}}
	for _, f := range []Format{FormatConfig, FormatYTT, FormatSecret} {
		var b strings.Builder
		if err := WriteRules(&b, []synth.Rule{rule}, Header{Options: Options{Format: f, PackageInstall: "ns/p\u202e"}}); err != nil {
			t.Fatal(err)
		}
		if strings.ContainsAny(b.String(), "\u202e\u2066\u2069") {
			t.Errorf("%s: a bidi control reached the output:\n%s", f, b.String())
		}
	}
}

// TestNamespaceValueKeyIsAnIdentifier (issue 12 item 6): a --namespace-value key that is not a
// data value name (a newline would put ytt code such as #@ fail on a line of its own) is refused.
func TestNamespaceValueKeyIsAnIdentifier(t *testing.T) {
	for _, bad := range []string{"ns\n#@ fail(\"x\")", "ns=a b", "1ns", "ns=a..b", "x or fail()"} {
		err := WriteRules(&strings.Builder{}, nil, Header{Options: Options{Format: FormatYTT, NamespaceValues: []string{bad}}})
		if err == nil || !strings.Contains(err.Error(), "--namespace-value") {
			t.Errorf("%q: got %v, want an error naming --namespace-value", bad, err)
		}
	}
	for _, good := range []string{"namespace", "ns=app.namespace", "app_ns"} {
		if err := WriteRules(&strings.Builder{}, nil, Header{Options: Options{Format: FormatYTT, NamespaceValues: []string{good}}}); err != nil {
			t.Errorf("%q: %v", good, err)
		}
	}
}

// TestExplainTextShowsControlsEscaped (issue 12 item 6): names, managers and values holding
// terminal escape sequences and control characters are shown escaped, and a value cut for width
// is cut between characters.
func TestExplainTextShowsControlsEscaped(t *testing.T) {
	evil := "\x1b[2J\x1b]0;pwned\x07"
	value := strings.Repeat("é", 50)
	name := "x" + evil
	path := fielddiff.FromFields([]string{"data", "k" + evil})
	rep := &classify.Report{Resources: []classify.Resource{{
		Pair:    pair.Pair{ID: pair.Identity{Kind: "ConfigMap", Namespace: "ns", Name: name}, Live: load.Doc{APIVersion: "v1"}},
		Applier: "kapp" + evil,
		Findings: []classify.Finding{{Path: path, Class: classify.Drift, Desired: "v" + evil, Live: value,
			Evidence: "managedFields: " + evil + " changed it", Warning: "w" + evil}},
	}}}
	for _, width := range []int{0, 60} {
		var b strings.Builder
		if err := WriteExplainText(&b, rep, Palette{}, width); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if strings.ContainsAny(out, "\x1b\x07") {
			t.Errorf("width %d: raw control characters:\n%q", width, out)
		}
		if !strings.Contains(out, `\x1b[2J\x1b]0;pwned\a`) {
			t.Errorf("width %d: escapes not shown:\n%s", width, out)
		}
		if !strings.Contains(out, strings.Repeat("é", 37)+"...") || strings.ContainsRune(out, '\uFFFD') {
			t.Errorf("width %d: value not cut between characters:\n%s", width, out)
		}
	}
}
