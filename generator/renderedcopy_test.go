package generator_test

import (
	"os"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/synth"
)

// renderedWith is the stream ytt renders from a package directory holding the manifests of in and
// the generated rules file: the manifests, then the rules without their "#!" comments (ytt drops
// them, the header that marks the file as rebasegen's included).
func renderedWith(t *testing.T, in generator.Inputs, rules string) string {
	t.Helper()
	manifests, err := os.ReadFile(in.Desired[0])
	if err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(rules)
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, l := range strings.Split(string(text), "\n") {
		if !strings.HasPrefix(strings.TrimLeft(l, " "), "#") {
			kept = append(kept, l)
		}
	}
	return writeFile(t, "rendered.yaml", string(manifests)+"\n---\n"+strings.Join(kept, "\n"))
}

// A package's rendered output given as the manifests (ytt -f config | rebasegen check -d -) holds
// a copy of the generated rules file without its header: it is that file, in force once, not the
// package's own rules. check called an unchanged pull request's rules stale (regenerated as if the
// copy were the package's own, every rule redundant), and generate verified fewer rules with the
// old ones in force, then replaced them (newcomer16 N16-1). Oracle: kapp's engine, through check
// of the manifests alone with the rules generate writes from the rendered stream: no ghost diff
// left, as with the rules generated from the manifests (hand-read: the same rules).
func TestRenderedCopyOfTheRulesIsTheRulesFile(t *testing.T) {
	in := fixture("hpa-replicas")
	rules, g := generatedRules(t, in)
	if len(g.Rules) == 0 {
		t.Fatal("no rules generated for fixtures/hpa-replicas")
	}
	manifests := in
	in.Desired = []string{renderedWith(t, in, rules)}

	ch, err := generator.Check(in, []string{rules})
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Stale) > 0 || len(ch.Residual) > 0 || len(ch.Hidden) > 0 {
		t.Errorf("check -d rendered -r %s: %d stale, %d residual, %d hidden; want none (the rendered copy is the rules file)", rules, len(ch.Stale), len(ch.Residual), len(ch.Hidden))
	}

	in.RuleFiles = []string{rules} // generate --output-file rules
	again, err := generator.Generate(in, synth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := synth.Entries(again.Rules), synth.Entries(g.Rules); got != want {
		t.Errorf("generate -d rendered --output-file %s: %d rules, want %d (the rules it replaces are not in force)", rules, got, want)
	}
	written, _ := generatedRules(t, in)
	ch, err = generator.Check(manifests, []string{written})
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Residual) > 0 {
		t.Errorf("the rules generate wrote from the rendered stream leave %d ghost diffs under kapp's engine", len(ch.Residual))
	}
}
