package generator_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/emit"
	"github.com/rebasegen/rebasegen/generator/synth"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// generate and check judge the same rules on the same inputs: check, given the rules generate
// wrote, must come to generate's verdict on every captured scenario (the resources kapp keeps and
// why it updates the others), find them current, and call hidden or residual exactly what
// generate's verification did.
func TestGenerateAndCheckAgree(t *testing.T) {
	for _, s := range scenarios(t) {
		t.Run(s.Name, func(t *testing.T) {
			in := inputs(s)
			g, err := generator.Generate(in, synth.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			h := emit.Header{Version: "test", Options: emit.Options{Desired: in.Desired, Live: in.Live, Namespace: in.Namespace}}
			if err := emit.WriteRules(&b, g.Rules, h); err != nil {
				t.Fatal(err)
			}
			c, err := generator.Check(in, []string{writeFile(t, "rules.yml", b.String())})
			if err != nil {
				t.Fatal(err)
			}
			gv, cv := g.Verification.Verdict, c.Verdict
			if gv.Paired != cv.Paired || gv.Kept != cv.Kept {
				t.Errorf("generate: kapp keeps %d/%d; check: %d/%d", gv.Kept, gv.Paired, cv.Kept, cv.Paired)
			}
			for _, class := range []classify.Class{classify.Drift, classify.Unknown, classify.Adoption, classify.Pending} {
				if gv.Count(class) != cv.Count(class) {
					t.Errorf("%s: generate counts %d resources kapp updates for it, check %d", class, gv.Count(class), cv.Count(class))
				}
			}
			if want, got := updatedFor(gv, classify.Unknown), fieldsOf(c.Unknown); !slices.Equal(want, got) {
				t.Errorf("unknown fields: generate %v, check %v", want, got)
			}
			if (len(g.Verification.Residual) == 0) != (len(c.Residual) == 0) {
				t.Errorf("residual ghost diffs: generate %v, check %d", g.Verification.Residual, len(c.Residual))
			}
			var hidden []string
			for _, h := range c.Hidden {
				hidden = append(hidden, h.Resource.String()+" "+h.Path)
			}
			if want := fmt.Sprint(g.Verification.Hidden); want != fmt.Sprint(hidden) {
				t.Errorf("hidden: generate %s, check %v", want, hidden)
			}
			if len(c.Stale) > 0 {
				t.Errorf("check calls the rules generate just wrote stale: %+v", c.Stale)
			}
			// one code path: the same verdict, finding by finding, as every format renders it
			// (a hidden change's rule is named where it is written: generate's are its own)
			if want, got := findingsOf(gv), findingsOf(cv); !slices.Equal(want, got) {
				t.Errorf("findings differ:\ngenerate %q\ncheck    %q", want, got)
			}
			if want, got := fmt.Sprint(gv.Masked), fmt.Sprint(cv.Masked); want != got {
				t.Errorf("masked: generate %s, check %s", want, got)
			}
		})
	}
}

// updatedFor lists "resource path" of the fields of class for which kapp updates a resource.
func updatedFor(v *verdict.Verdict, class classify.Class) []string {
	var out []string
	for _, u := range v.Updates {
		for _, f := range u.Fields {
			if f.Class == class {
				out = append(out, u.Resource.String()+" "+f.Path.String())
			}
		}
	}
	slices.Sort(out)
	return out
}

// findingsOf are the verdict's findings (no gate flag set), one line each, a hidden change's
// without the rule hiding it.
func findingsOf(v *verdict.Verdict) []string {
	var out []string
	for _, f := range v.Findings(verdict.Gate{}) {
		if f.Kind == verdict.KindHidden {
			f.Evidence, f.File, f.Line = "", "", 0
		}
		out = append(out, fmt.Sprintf("%+v", f))
	}
	return out
}

func fieldsOf(rs []verdict.Residual) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Resource.String()+" "+r.Finding.Path.String())
	}
	slices.Sort(out)
	return out
}
