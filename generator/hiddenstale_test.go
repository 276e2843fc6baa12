package generator_test

import (
	"regexp"
	"strings"
	"testing"

	ctldiff "carvel.dev/kapp/pkg/kapp/diff"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/internal/kapptest"
	"github.com/rebasegen/rebasegen/generator/verdict"
	"github.com/rebasegen/rebasegen/internal/format"
	"github.com/rebasegen/rebasegen/internal/generated"
)

// A rule file an older rebasegen generated (the LimitRange defaults copied by index, as generate
// wrote them before it copied them by item) hides a pull request's change of the limit's max: kapp
// applies the old default beside the new max. check said "regenerate them" on the hidden change
// and, of the same file, "regenerate it after the deploy" (newcomer12 N12-1): two contradicting
// orders, the second one a deploy the API server refuses. One instruction now: the file is stale,
// regenerate it now from these manifests (and once more after the deploy). The oracle that the
// instruction is right is kapp v0.66.0's deploy under the regenerated rules and the API server's
// own validation of the LimitRange it applies (ValidateLimitRange).
func TestRulesHidingAChangeSayRegenerateNow(t *testing.T) {
	limits := rbacAndLimits[strings.Index(rbacAndLimits, "apiVersion: v1\nkind: LimitRange"):]
	live := writeFile(t, "live.yaml", kapptest.Deployed(t, "shop", limits))
	desired := writeFile(t, "desired.yaml", limits)
	in := generator.Inputs{Desired: []string{desired}, Live: []string{live}, Namespace: "shop"}
	text, _ := generatedText(t, in, given(in))
	// the header as generate writes it, the rules as an older rebasegen wrote them
	header := regexp.MustCompile(`(?m)\A(#!.*\n)*`).FindString(text)
	header = regexp.MustCompile(`(?m)^#! Digest: sha256:[0-9a-f]+$`).ReplaceAllString(header, "#! Digest: sha256:"+strings.Repeat("0", 64))
	older := header + byIndexRules[:strings.Index(byIndexRules, "rebaseRules:\n")+len("rebaseRules:\n")] + byIndexRules[strings.Index(byIndexRules, "- paths:\n  - [spec, limits"):]
	rules := writeFile(t, "rules.yml", generated.Seal(older))
	if generated.Of([]byte(generated.Seal(older))) != generated.Intact {
		t.Fatal("the older rules are not sealed as generate seals them")
	}
	pr := writeFile(t, "pr.yaml", strings.Replace(limits, `max: {cpu: "1", memory: 512Mi}`, `max: {cpu: 500m, memory: 512Mi}`, 1))
	c, err := generator.Check(generator.Inputs{Desired: []string{pr}, Live: []string{live}, Namespace: "shop"}, []string{rules})
	if err != nil {
		t.Fatal(err)
	}
	var hidden, stale []verdict.Finding
	for _, f := range c.Findings(verdict.Gate{}) {
		switch f.Kind {
		case verdict.KindHidden:
			hidden = append(hidden, f)
		case verdict.KindStale:
			stale = append(stale, f)
		}
	}
	if len(hidden) == 0 || !strings.Contains(hidden[0].Evidence, "regenerate them") {
		t.Fatalf("check: no hidden change telling to regenerate the rules: %v", hidden)
	}
	if len(c.Deferred) > 0 {
		t.Errorf("check: %s called up to date (regenerate it after the deploy) while it hides %s", c.Deferred[0].File, hidden[0].Path)
	}
	if len(stale) != 1 || !strings.Contains(stale[0].Diff, "regenerate it now, from these manifests") || strings.Contains(stale[0].Diff, "regenerate after the deploy") || strings.Contains(stale[0].Diff, "undo the edit") {
		t.Fatalf("check: want the file stale, regenerated now from these manifests, and no order to wait for the deploy; stale: %v", stale)
	}
	// the CI gate's format carries the same reason and advice as text and JSON (newcomer16 N16-2:
	// -o github said "regenerate it with the command in its header" alone)
	var gh strings.Builder
	if err := verdict.Write(&gh, format.GitHub, verdict.CheckReport(c.Verdict, c.Findings(verdict.Gate{}), nil), rules); err != nil {
		t.Fatal(err)
	}
	annotation := regexp.MustCompile(`(?m)^::error file=[^,]*,line=\d+::stale: .*$`).FindString(gh.String())
	for _, want := range []string{"it hides changes made in Git (" + hidden[0].Resource.String() + " " + hidden[0].Path, "regenerate it now, from these manifests, and once more after the deploy, from a new capture"} {
		if !strings.Contains(annotation, want) {
			t.Errorf("check -o github: the stale file's annotation lacks %q:\n%s", want, gh.String())
		}
	}
	// as told: regenerated from the pull request's manifests, kapp's deploy applies an object
	// the API server accepts, and check passes
	regenerated, _ := generatedRules(t, generator.Inputs{Desired: []string{pr}, Live: []string{live}, Namespace: "shop"})
	updated := false
	for _, ch := range kapptest.Changes(t, []string{pr}, live, "shop", []string{regenerated}, false) {
		if ch.Op() == ctldiff.ChangeOpUpdate && ch.NewResource().Kind() == "LimitRange" {
			updated = true
			if err := kapptest.LimitRangeRefused(t, ch.NewResource().UnstructuredObject()); err != nil {
				t.Errorf("oracle: the API server refuses the LimitRange kapp applies under the regenerated rules: %v", err)
			}
		}
	}
	if !updated {
		t.Fatal("oracle: kapp's deploy does not update the LimitRange under the regenerated rules")
	}
	if c, err = generator.Check(generator.Inputs{Desired: []string{pr}, Live: []string{live}, Namespace: "shop"}, []string{regenerated}); err != nil {
		t.Fatal(err)
	}
	if verdict.Failing(c.Findings(verdict.Gate{})) {
		t.Errorf("check of the regenerated rules fails: %v", c.Findings(verdict.Gate{}))
	}
}
