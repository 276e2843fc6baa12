package verdict

// The references kapp's deploy writes as the live object holds them: explain's classification,
// which runs no kapp, calls them pending.

import (
	"slices"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/verify"
)

// KappWrittenReferences takes out of rep's pending changes the references to a versioned resource
// of the deploy that kapp's deploy writes as the live object holds them (the manifest declares
// cfg, the live object and kapp's last apply cfg-ver-1): kapp's templateRules, or its explicit
// references, rewrite them (diff/versioned_resource.go), so they are no change made in Git; each
// is counted as kapp's (fielddiff.NoiseKapp). Only the changes nextVersion reads as such a
// reference are asked about, each resource once: kapp's rebase of its manifest beside the
// deploy's versioned resources (verify.Rebased, besideOf), with configs, must hold the live value
// under both bases. Where the versioned resource changes in Git, kapp writes its next version and
// the reference stays pending. Deploys without versioned resources ask kapp nothing.
func KappWrittenReferences(rep *classify.Report, configs []load.Object) error {
	beside, err := besideOf(rep)
	if err != nil || beside == nil {
		return err
	}
	var asked []int // resources with such a reference
	for i, r := range rep.Resources {
		if slices.ContainsFunc(r.Findings, func(f classify.Finding) bool { return writtenCandidate(f, beside[r.ID]) }) {
			asked = append(asked, i)
		}
	}
	if len(asked) == 0 {
		return nil
	}
	written := make([][]bool, len(asked)) // per resource, per finding: kapp writes the live value
	err = verify.Rebased(len(asked), func(i int) (verify.Pair, error) {
		m := mutation{r: rep.Resources[asked[i]], beside: beside[rep.Resources[asked[i]].ID]}
		return m.unchanged()
	}, unstructuredOf(configs), func(i int, b verify.Base, obj map[string]any, err error) {
		r := rep.Resources[asked[i]]
		if written[i] == nil {
			written[i] = make([]bool, len(r.Findings))
			for k, f := range r.Findings {
				written[i][k] = writtenCandidate(f, beside[r.ID])
			}
		}
		for k, f := range r.Findings {
			if err != nil || obj == nil {
				written[i][k] = false
				continue
			}
			v, ok := f.Path.GetDeclared(asDecoded(obj))
			written[i][k] = written[i][k] && ok && fielddiff.Equal(v, f.Live)
		}
	})
	if err != nil {
		return err
	}
	for i, at := range asked {
		r := &rep.Resources[at]
		var kept []classify.Finding
		for k, f := range r.Findings {
			if !written[i][k] {
				kept = append(kept, f)
				continue
			}
			if r.Noise == nil {
				r.Noise = map[string]int{}
			}
			r.Noise[fielddiff.NoiseKapp]++
		}
		r.Findings = kept
	}
	return nil
}

// writtenCandidate: f is a pending change of a value nextVersion reads as a reference kapp's
// deploy rewrote to a version of a versioned resource of beside.
func writtenCandidate(f classify.Finding, beside []verify.Pair) bool {
	if f.Class != classify.Pending || f.Change != fielddiff.Modified {
		return false
	}
	_, ok := nextVersion(f.Path, f.Desired, f.Live, true, beside)
	return ok
}
