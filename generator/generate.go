package generator

import (
	"bytes"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/emit"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/generator/synth"
	"github.com/rebasegen/rebasegen/generator/verify"
	"github.com/rebasegen/rebasegen/internal/words"
)

// Generated is the result of generate: rules, and kapp's verdict on them.
type Generated struct {
	Report *classify.Report
	Set    *pair.Set
	synth.Result
	Config       *unstructured.Unstructured // the rules as one kapp Config
	Verification Verification
	Unpaired     []Unpaired // desired objects with no live counterpart: not compared
}

// Verification is what kapp's engine says about the generated rules.
type Verification struct {
	Verdict               // kapp's engine on every pair, with the generated rules
	GhostPairs   int      // pairs whose differences are all ghost diffs (or accepted unknowns)
	KeptPairs    int      // of those, pairs kapp now keeps under both bases
	GhostFields  int      // ghost fields (and accepted unknowns) in all pairs
	Residual     []Update // pairs still updated for ghost diffs, with kapp's diff
	Masked       []Field  // declared fields whose change kapp no longer shows (controller-owned)
	Hidden       []Field  // declared fields whose change a rule hides although it should not
	MutationsRun int
	// Adoption: what kapp changes once when it takes objects over from other tools (never
	// ruled; the verdict judges those pairs with them neutralised, or by their fields alone when
	// kapp never deployed the object).
	Adoption []Residual
	// Cost is what verifying the ghost pairs cost kapp's engine, and the part the rules took.
	Cost verify.Cost
	// Sampled pairs were diffed by kapp again with and without the generated rules (Inputs.Cost):
	// With and Without are what each cost kapp's engine, both bases.
	Sampled       int
	With, Without verify.Cost
}

// Field is a field a resource declares, as the mutation check names it.
type Field struct {
	Resource pair.Identity
	Path     string // list items by merge key, as reports write paths
}

func (f Field) String() string { return f.Resource.String() + " " + f.Path }

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
	pairAt := func(i int) (verify.Pair, error) { return verifyPair(ghosts[sample[i]], nil, nil) }
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

// OK reports whether every ghost diff is gone and no real change is hidden. Drift and unknown
// fields are the caller's to judge (Verdict.Updates names them).
func (v Verification) OK() bool { return len(v.Residual) == 0 && len(v.Hidden) == 0 }

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

// Generate synthesizes the rules and verifies them with kapp's engine.
func (a *Analysis) Generate(opts synth.Options) (*Generated, error) {
	if len(a.Set.Pairs) == 0 && len(a.Set.Created) > 0 {
		return nil, nothingPaired(a.Unpaired())
	}
	s, err := a.Synthesize(opts)
	if err != nil {
		return nil, err
	}
	g := *s
	g.Unpaired = a.Unpaired()
	g.Verification, err = check(g.Report, g.Set, g.Rules, g.Config, opts, a.Inputs.Progress, a.Inputs.Cost)
	return &g, err
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
	var buf bytes.Buffer
	if err := emit.WriteRules(&buf, g.Rules, emit.Header{}); err != nil {
		return nil, err
	}
	objs, err := load.Bytes("generated", buf.Bytes())
	if err != nil {
		return nil, fmt.Errorf("generated Config does not parse (a bug): %w", err)
	}
	g.Config = objs[0].Unstructured
	if a.synthesized == nil {
		a.synthesized = map[synth.Options]*Generated{}
	}
	a.synthesized[opts] = g
	return g, nil
}

// check verifies the rules: kapp's engine runs on every pair; pairs whose differences are all
// ghosts must be kept under both bases, every other update is named with its fields, and a
// change to any field a rule touches must still be shown unless a controller owns it.
func check(rep *classify.Report, set *pair.Set, rules []synth.Rule, cfg *unstructured.Unstructured, opts synth.Options, progress Progress, measureCost bool) (Verification, error) {
	var v Verification
	configs := append(unstructuredOf(set.Configs), cfg)
	for _, r := range rep.Resources {
		v.Adoption = append(v.Adoption, adoptionChanges(r)...)
		if allGhosts(r, opts) {
			v.GhostPairs++
		}
		for _, f := range r.Findings {
			if f.Ruled(opts.IncludeUnknown) {
				v.GhostFields++
			}
		}
	}
	verdict, pairs, results, cost, err := verdictOf(rep, configs, opts.IncludeUnknown, progress)
	if err != nil {
		return v, err
	}
	v.Verdict, v.Cost = verdict, cost
	if measureCost {
		if err := timeRules(&v, pairs, configs); err != nil {
			return v, err
		}
	}
	v.KeptPairs = v.GhostPairs
	for _, u := range v.Updates {
		if len(u.Fields) == 0 {
			v.KeptPairs--
		}
		if u.Ghost {
			v.Residual = append(v.Residual, u)
		}
	}
	return v, mutations(&v, rep, rules, configs, progress, verifiedBy(rep, results))
}

// verifiedBy indexes kapp's results on the report's unmutated pairs (results[i] is
// rep.Resources[i]'s), for the mutation check's baselines.
func verifiedBy(rep *classify.Report, results []verify.Result) map[pair.Identity]verify.Result {
	verified := make(map[pair.Identity]verify.Result, len(results))
	for i, r := range rep.Resources {
		verified[r.ID] = results[i]
	}
	return verified
}

func allGhosts(r classify.Resource, opts synth.Options) bool {
	for _, f := range r.Findings {
		if !f.Ruled(opts.IncludeUnknown) && f.Class != classify.Adoption {
			return false
		}
	}
	return true
}

// verifyPairs asks kapp's engine about pairs, decoding each only while kapp reads it.
func verifyPairs(pairs []pair.Pair, configs []*unstructured.Unstructured, progress Progress) ([]verify.Result, verify.Cost, error) {
	return verify.Baselines(len(pairs), func(i int) (verify.Pair, error) {
		return verifyPair(pairs[i], nil, nil)
	}, configs, progress.stage("verify", len(pairs)))
}

// verifyPair decodes a pair for kapp's engine, with value set at path in the desired object
// when path is not nil.
func verifyPair(p pair.Pair, path fielddiff.Path, value any) (verify.Pair, error) {
	desired, live, err := p.Objects()
	if err != nil {
		return verify.Pair{}, err
	}
	if path != nil {
		path.Set(desired.Object, value)
	}
	return verify.Pair{Desired: desired.Unstructured, Live: live.Unstructured}, nil
}

func unstructuredOf(objs []load.Object) []*unstructured.Unstructured {
	out := make([]*unstructured.Unstructured, len(objs))
	for i, o := range objs {
		out[i] = o.Unstructured
	}
	return out
}
