package verdict

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/generator/verify"
	"github.com/rebasegen/rebasegen/internal/words"
)

// Verification is the verdict on the generated rules, with what only generate counts.
type Verification struct {
	*Verdict
	GhostPairs  int // pairs whose differences are all ghost diffs (or accepted unknowns)
	KeptPairs   int // of those, pairs kapp now keeps under both bases
	GhostFields int // ghost fields (and accepted unknowns) in all pairs
	// Sampled pairs were diffed by kapp again with and without the generated rules (generate --cost):
	// With and Without are what each cost kapp's engine, as one kapp deploy diffs (verify.Ops).
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
	return fmt.Sprintf("rules overhead: kapp's diff with the rules takes %s its time without them (%d pairs timed both ways, as kapp deploy diffs them without --diff-changes); it applies %.1f rebase mods per pair with them, %.1f without; %.0f%% of its time over the %d pairs verified is spent in the rules",
		over, v.Sampled, perPair(v.With.Applied), perPair(v.Without.Applied), share, v.Paired)
}

// TimeRules diffs an even sample of the verified pairs again, with the configs and without the
// generated one (the last), for CostSummary. Both runs ask kapp for its ops only, as kapp deploy
// computes them without --diff-changes (kapp-controller's default): the verification's own
// timings include the diff text of updated pairs, which only pairs without the rules have.
func TimeRules(v *Verification, ghosts []pair.Pair, configs []*unstructured.Unstructured) error {
	var sample []int
	for i := range min(costSample, len(ghosts)) {
		sample = append(sample, i*len(ghosts)/min(costSample, len(ghosts)))
	}
	pairAt := func(i int) (verify.Pair, error) {
		desired, live, err := ghosts[sample[i]].Objects()
		if err != nil {
			return verify.Pair{}, err
		}
		return pairOf(desired, live), nil
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

// Verified is generate's verification: the verdict on its rules (vd), with the pairs and fields
// the rules are meant to make kapp keep counted from the report.
func Verified(vd *Verdict, rep *classify.Report, includeUnknown bool) Verification {
	v := Verification{Verdict: vd}
	for _, r := range rep.Resources {
		if allGhosts(r, includeUnknown) {
			v.GhostPairs++
		}
		for _, f := range r.Findings {
			if f.Ruled(includeUnknown) {
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
	return v
}

func allGhosts(r classify.Resource, includeUnknown bool) bool {
	for _, f := range r.Findings {
		if !f.Ruled(includeUnknown) && f.Class != classify.Adoption {
			return false
		}
	}
	return true
}
