package generator

import (
	"bytes"
	"fmt"
	"slices"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/emit"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/generator/synth"
	"github.com/rebasegen/rebasegen/generator/verdict"
	"github.com/rebasegen/rebasegen/generator/verify"
	"github.com/rebasegen/rebasegen/internal/words"
)

// Generated is the result of generate: rules, and kapp's verdict on them.
type Generated struct {
	Report *classify.Report
	Set    *pair.Set
	synth.Result
	Config       *unstructured.Unstructured // the rules as one kapp Config
	config       load.Object                // Config, for kapp's engine
	kappConfig   ctlconf.Config             // the same Config typed, for the verdict stage's mutation check
	Verification Verification
	Unpaired     []verdict.Unpaired // desired objects with no live counterpart: not compared
}

// Verification is the verdict on the generated rules, with what only generate counts.
type Verification struct {
	*verdict.Verdict
	GhostPairs  int // pairs whose differences are all ghost diffs (or accepted unknowns)
	KeptPairs   int // of those, pairs kapp now keeps under both bases
	GhostFields int // ghost fields (and accepted unknowns) in all pairs
	// Sampled pairs were diffed by kapp again with and without the generated rules (Inputs.Cost):
	// With and Without are what each cost kapp's engine, both bases.
	Sampled       int
	With, Without verify.Cost
}

// costSample is how many verified pairs generate --cost diffs again with and without the rules:
// spread evenly over the input, a few percent of the verification at fleet scale.
const costSample = 64

// CostSummary is the rules' price to kapp on every deploy: its diff time over the sampled pairs
// with the rules against without them, the rebase mods it applies, and the share of its
// verification time spent inside the rules.
func (v Verification) CostSummary() string {
	over, perPair := "-", func(n int64) float64 { return float64(n) / float64(max(v.Sampled, 1)) }
	if v.Without.Diff > 0 {
		over = fmt.Sprintf("%.2fx", v.With.Diff.Seconds()/v.Without.Diff.Seconds())
	}
	share := 0.0
	if v.Cost.Diff > 0 {
		share = 100 * v.Cost.Rules.Seconds() / v.Cost.Diff.Seconds()
	}
	return fmt.Sprintf("rules overhead: kapp's diff with the rules takes %s its time without them (%d pairs timed both ways, both bases, as kapp deploy diffs without --diff-changes); it applies %.1f rebase mods per pair with them, %.1f without; %.0f%% of its time over the %d pairs verified is spent in the rules",
		over, v.Sampled, perPair(v.With.Applied), perPair(v.Without.Applied), share, v.Paired)
}

// timeRules diffs an even sample of the verified pairs again, with the configs and without the
// generated one (the last), for CostSummary. Both runs ask kapp for its ops only, as kapp deploy
// computes them without --diff-changes (kapp-controller's default): the verification's own
// timings include the diff text of updated pairs, which only pairs without the rules have.
func timeRules(v *Verification, ghosts []pair.Pair, configs []*unstructured.Unstructured) error {
	var sample []int
	for i := range min(costSample, len(ghosts)) {
		sample = append(sample, i*len(ghosts)/min(costSample, len(ghosts)))
	}
	pairAt := func(i int) (verify.Pair, error) {
		desired, live, err := ghosts[sample[i]].Objects()
		if err != nil {
			return verify.Pair{}, err
		}
		return verify.Pair{Desired: desired.Unstructured, Live: live.Unstructured}, nil
	}
	var err error
	if _, v.With, err = verify.Ops(len(sample), pairAt, configs); err != nil {
		return err
	}
	if _, v.Without, err = verify.Ops(len(sample), pairAt, configs[:len(configs)-1]); err != nil {
		return err
	}
	v.Sampled = len(sample)
	return nil
}

// Summary is the one-line verdict printed by generate.
func (v Verification) Summary() string {
	s := fmt.Sprintf("%s; %s removed, verified with kapp's diff engine", v.Verdict.Summary(), words.Count(v.GhostFields, "ghost field"))
	if len(v.Masked) > 0 {
		s += fmt.Sprintf("; %s masked (controller-owned)", words.Count(len(v.Masked), "declared field"))
	}
	if len(v.Adoption) > 0 {
		s += fmt.Sprintf("; %s kapp makes once, when it takes the objects over (not ruled)", words.Count(len(v.Adoption), "adoption change"))
	}
	if len(v.Hidden) > 0 {
		s += fmt.Sprintf("; %s hidden by the rules", words.Count(len(v.Hidden), "real change"))
	}
	return s
}

// Generate classifies, synthesizes rules and verifies them with kapp's engine.
func Generate(in Inputs, opts synth.Options) (*Generated, error) {
	a, err := Analyze(in)
	if err != nil {
		return nil, err
	}
	return a.Generate(opts)
}

// Synthesize is Generate without asking kapp's engine about the rules: g.Verification is zero.
// The benchmarks (hack/bench) time the two apart.
func Synthesize(in Inputs, opts synth.Options) (*Generated, error) {
	a, err := Analyze(in)
	if err != nil {
		return nil, err
	}
	return a.Synthesize(opts)
}

// Generate synthesizes the rules and asks the verdict stage about them: kapp's engine runs on
// every pair; pairs whose differences are all ghosts must be kept under both bases, every other
// update is named with its fields, and a change to any field a rule touches must still be shown
// unless a controller owns it.
func (a *Analysis) Generate(opts synth.Options) (*Generated, error) {
	if err := verdict.NothingPaired(a.Set, verdict.UnpairedOf(a.Set)); err != nil {
		return nil, err
	}
	s, err := a.Synthesize(opts)
	if err != nil {
		return nil, err
	}
	g := *s
	configs := append(slices.Clone(a.Set.Configs), g.config)
	vd, err := verdict.Judge(verdict.Input{Report: a.Report, Set: a.Set, Configs: configs, Rules: verdict.Generated(g.kappConfig, yttHints(g.Rules)),
		IncludeUnknown: opts.IncludeUnknown, Stage: a.Inputs.Progress.stage})
	if err != nil {
		return nil, err
	}
	v := Verification{Verdict: vd}
	for _, r := range a.Report.Resources {
		if allGhosts(r, opts) {
			v.GhostPairs++
		}
		for _, f := range r.Findings {
			if f.Ruled(opts.IncludeUnknown) {
				v.GhostFields++
			}
		}
	}
	v.KeptPairs = v.GhostPairs
	for _, u := range v.Updates {
		if len(u.Fields) == 0 {
			v.KeptPairs--
		}
	}
	if a.Inputs.Cost {
		pairs := make([]pair.Pair, len(a.Report.Resources))
		for i, r := range a.Report.Resources {
			pairs[i] = r.Pair
		}
		us := make([]*unstructured.Unstructured, len(configs))
		for i, c := range configs {
			us[i] = c.Unstructured
		}
		if err := timeRules(&v, pairs, us); err != nil {
			return nil, err
		}
	}
	g.Verification, g.Unpaired = v, vd.Unpaired
	return &g, nil
}

// yttHints are the paths each ytt rule rewrites (those of every rule it holds), in rule order:
// the declared values the mutation check changes under it.
func yttHints(rules []synth.Rule) [][]fielddiff.Path {
	var out [][]fielddiff.Path
	for _, r := range rules {
		if !r.YTT() {
			continue
		}
		var paths []fielddiff.Path
		for _, part := range r.Parts() { // empty-map paths hold no declared value
			paths = append(append(paths, part.Keyed...), part.Indexed...)
			for _, p := range part.Paths {
				paths = append(paths, fielddiff.FromFields(p))
			}
		}
		out = append(out, paths)
	}
	return out
}

// Synthesize builds the rules (g.Config included) without verifying them; each option set is
// synthesized once per Analysis.
func (a *Analysis) Synthesize(opts synth.Options) (*Generated, error) {
	if g, ok := a.synthesized[opts]; ok {
		return g, nil
	}
	g := &Generated{Report: a.Report, Set: a.Set, Result: synth.Synthesize(a.Report, opts)}
	if err := a.place(&g.Result); err != nil {
		return nil, err
	}
	var err error
	if g.kappConfig, g.config, err = generatedConfig(g.Rules); err != nil {
		return nil, err
	}
	g.Config = g.config.Unstructured
	if a.synthesized == nil {
		a.synthesized = map[synth.Options]*Generated{}
	}
	a.synthesized[opts] = g
	return g, nil
}

// generatedConfig is the Config of the rules, typed (emit.Config) and as the object kapp's engine reads:
// kapp builds its rules (ctlconf.Conf) only from resources, so the engine gets the file generate
// writes, as kapp will read it.
func generatedConfig(rules []synth.Rule) (ctlconf.Config, load.Object, error) {
	cfg, err := emit.Config(rules)
	if err != nil {
		return ctlconf.Config{}, load.Object{}, err
	}
	var buf bytes.Buffer
	if err := emit.WriteRules(&buf, rules, emit.Header{}); err != nil {
		return ctlconf.Config{}, load.Object{}, err
	}
	objs, err := load.Bytes("generated", buf.Bytes())
	if err != nil {
		return ctlconf.Config{}, load.Object{}, fmt.Errorf("generated Config does not parse (a bug): %w", err)
	}
	return cfg, objs[0], nil
}

func allGhosts(r classify.Resource, opts synth.Options) bool {
	for _, f := range r.Findings {
		if !f.Ruled(opts.IncludeUnknown) && f.Class != classify.Adoption {
			return false
		}
	}
	return true
}
