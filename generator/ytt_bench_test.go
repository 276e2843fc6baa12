package generator_test

import (
	"testing"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/synth"
)

// BenchmarkYTTRules evaluates the generated ytt rules of the fixtures that have them once for each
// resource they match, with kapp's own ytt rebase mod (no memo): what they cost kapp per resource,
// base and deploy (allocations per op / evals per op: per evaluation).
func BenchmarkYTTRules(b *testing.B) {
	type eval struct {
		mod           ctlres.ResourceModWithMultiple
		new, existing ctlres.Resource
	}
	var evals []eval
	for _, s := range scenarios(b) {
		g, err := generator.Synthesize(inputs(s), synth.Options{})
		if err != nil {
			b.Fatal(err)
		}
		cfg, err := ctlconf.NewConfigFromResource(ctlres.NewResourceUnstructured(*g.Config, ctlres.ResourceType{}))
		if err != nil {
			b.Fatal(err)
		}
		for _, rule := range cfg.RebaseRules {
			if rule.Ytt == nil {
				continue
			}
			mod := rule.AsMods()[0]
			for _, p := range g.Set.Pairs {
				d, l, err := p.Objects()
				if err != nil {
					b.Fatal(err)
				}
				nr := ctlres.NewResourceUnstructured(*d.Unstructured, ctlres.ResourceType{})
				if l.Unstructured != nil && mod.IsResourceMatching(nr) {
					evals = append(evals, eval{mod, nr, ctlres.NewResourceUnstructured(*l.Unstructured, ctlres.ResourceType{})})
				}
			}
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, e := range evals {
			if err := e.mod.ApplyFromMultiple(e.new.DeepCopy(), map[ctlres.FieldCopyModSource]ctlres.Resource{
				ctlres.FieldCopyModSourceNew: e.new, ctlres.FieldCopyModSourceExisting: e.existing}); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(len(evals)), "evals/op")
}
