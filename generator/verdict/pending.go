package verdict

import (
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/verify"
	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// pendingHidden returns the changes made in Git that kapp, under the rules in force, does not
// show. The mutation check changes declared values to ones no rule can predict; this asks about
// the change Git actually holds, which a rule can single out, and a removal, which no declared
// value stands for. A change the object kapp applies on this deploy holds as Git declares it
// (appliedOnDeploy: one rebase of each resource's manifest) is applied. Each other pending change
// is judged on its own, whatever else kapp updates on the resource: the manifest with that one
// field set back to what kapp last applied (the live value) is the unchanged pair, the manifest
// the changed one (verify.Shown). A change kapp's built-in rules alone do not show either is
// kapp's own behaviour, not a rule's: where kapp's built-in rebase rules put the live value into
// the object kapp applies (builtinKept; probe13 P13-2: its copy of the live metadata keeps
// finalizers and ownerReferences changed in Git), it is hidden by kapp's default Config, which no
// rule of the package's lets through, never a change kapp applies; where it is a reference kapp's
// templateRules write as the live one (nextVersion), it is no pending change, and leaves
// v.Pending; otherwise (kapp's labels, noop, a new version) it is left out.
func (v *Verdict) pendingHidden(in Input, configs []*unstructured.Unstructured) ([]Hidden, error) {
	byID := map[string]classify.Resource{}
	for _, r := range in.Report.Resources {
		byID[r.ID.String()] = r
	}
	var all []mutation
	var refs []bool                      // the change is to a reference kapp's templateRules write (nextVersion)
	var serverKeeps []bool               // the API server keeps the live value too (classify's warning says so)
	var redefaulted []bool               // the server's default for the manifest differs from the live one
	var jointly []bool                   // the object kapp applies is asked about it in its resource's joint probe
	var pendingAt []int                  // all's index -> v.Pending's
	objs := map[string]*pendingObjects{} // each resource decoded once, not once per change
	for j, p := range v.Pending {
		if p.Finding.Owner != "" {
			// a controller rewrote what kapp applied: the live value is not kapp's to revert
			// to; the value Git holds is judged with the others changed in Git
			// (gitChangesRewritten), naming the owner
			continue
		}
		if p.Finding.GitToo != nil {
			// the live object drifted too: the live value is not what kapp applied, and kapp
			// diffs against it; the value Git holds is judged with the others changed in Git
			// (gitChangesRewritten), as the drift it is
			continue
		}
		r := byID[p.Resource.String()]
		o, err := objectsOf(objs, r)
		if err != nil {
			return nil, err
		}
		// the manifest no longer declares it; or never did, and the server's default for it
		// differs from the one it gave kapp's last apply (newcomer10 N10-8: a NetworkPolicy's
		// policyTypes once Git adds egress rules)
		removed := p.Finding.Change == fielddiff.Added
		if removed && o.last != nil {
			_, held := o.last.GetDeclared(p.Finding.Path)
			removed = held
			redefaulted = append(redefaulted, !held)
		} else {
			redefaulted = append(redefaulted, false)
		}
		m := mutation{r: r, path: p.Finding.Path, what: p.Finding.Path.String(), single: o.single,
			removed:   removed,
			reordered: p.Finding.Reordered, beside: v.beside[r.ID]}
		_, ref := nextVersion(p.Finding.Path, p.Finding.Desired, p.Finding.Live, p.Finding.Change == fielddiff.Modified, v.beside[r.ID])
		// what the object kapp applies holds where kapp applies the change: the manifest's value,
		// or, for a removal, none of the live one (as decoded: the finding's values are masked
		// for Secrets)
		var held bool
		if removed {
			m.value, held = p.Finding.Path.GetDeclared(o.live.Object)
		} else {
			m.value, held = p.Finding.Path.GetDeclared(o.desired.Object)
		}
		m.key = p.Finding.Path
		jointly = append(jointly, held && !o.single && !ref && !m.reordered && !nonceAt(m.path) && !redefaulted[len(redefaulted)-1])
		all = append(all, m)
		refs, pendingAt = append(refs, ref), append(pendingAt, j)
		serverKeeps = append(serverKeeps, p.Finding.ServerKeeps)
	}
	if len(all) == 0 {
		return nil, nil
	}
	// The changed pair of every pending change of a resource is the manifest itself: kapp is asked
	// about it once per resource (Baselines), not once per change (Shown), where its verdict and
	// the reverted pair's depend on nothing but their pair (Result.Alone).
	baselines := func(configs []*unstructured.Unstructured, ask []int, manifest map[string]verify.Result) error {
		var once []mutation
		for _, j := range ask {
			if m := all[j]; !m.single {
				if _, ok := manifest[m.r.ID.String()]; !ok {
					manifest[m.r.ID.String()] = verify.Result{}
					once = append(once, mutation{r: m.r, beside: m.beside})
				}
			}
		}
		for _, call := range calls(once) {
			res, _, err := verify.Baselines(len(call), func(i int) (verify.Pair, error) {
				return once[call[i]].unchanged()
			}, configs, nil)
			if err != nil {
				return err
			}
			v.PendingProbes += len(call)
			for i, j := range call {
				manifest[once[j].r.ID.String()] = res[i]
			}
		}
		return nil
	}
	shownWith := func(configs []*unstructured.Unstructured, ask []int, manifest map[string]verify.Result) ([]bool, error) {
		shown := make([]bool, len(all))
		asked := make([]mutation, len(ask))
		for i, j := range ask {
			asked[i] = all[j]
		}
		for _, call := range calls(asked) {
			reverted, _, err := verify.Baselines(len(call), func(i int) (verify.Pair, error) {
				m := asked[call[i]]
				desired, live, err := m.r.Objects()
				if err != nil {
					return verify.Pair{}, err
				}
				switch {
				case m.reordered && fielddiff.OrderLike(desired.Unstructured, live.Unstructured, m.path):
					// the items in the order kapp last applied, as they are otherwise
				case nonceAt(m.path):
					// the unchanged pair is the one after this deploy, the cluster holding what
					// kapp writes (kapp refuses any manifest value but "")
					err = appliedBefore(live.Unstructured, m.path, kappconv.NewNonce)
				default:
					revert(desired.Object, live.Object, byIndex(desired.Object, m.path))
				}
				p := pairOf(desired, live)
				p.Beside = m.beside
				return p, err
			}, configs, nil)
			if err != nil {
				return nil, err
			}
			v.PendingProbes += len(call)
			var rest []int // asked about beside the pairs of their call
			for i, j := range call {
				if res := manifest[asked[j].r.ID.String()]; res.Alone && reverted[i].Alone {
					shown[ask[j]] = verify.ShownBy(res, reverted[i])
				} else {
					rest = append(rest, i)
				}
			}
			if len(rest) == 0 {
				continue
			}
			res, err := verify.Shown(len(call), func(i int) (verify.Pair, error) {
				return asked[call[i]].unchanged()
			}, func(i int) verify.Result { return reverted[i] }, configs, nil)
			if err != nil {
				return nil, err
			}
			v.PendingProbes += len(call)
			for _, i := range rest {
				shown[ask[call[i]]] = res[i]
			}
		}
		return shown, nil
	}
	// judged is shownWith, where the object kapp applies on this deploy (one rebase of each
	// resource's manifest, appliedOnDeploy) does not already answer: a change it holds as Git
	// declares it is shown (applied: the joint probe's answer); with keptHides, one whose live
	// value it holds under a base is not. Only the others are asked about one by one.
	judged := func(configs []*unstructured.Unstructured, ask []int, keptHides bool) (shown, applied []bool, err error) {
		manifest := map[string]verify.Result{}
		if err := baselines(configs, ask, manifest); err != nil {
			return nil, nil, err
		}
		joint := make([]bool, len(all))
		for _, i := range ask {
			joint[i] = jointly[i]
		}
		applied, kept, err := v.appliedOnDeploy(in, all, joint, objs, manifest, configs)
		if err != nil {
			return nil, nil, err
		}
		var rest []int
		for _, i := range ask {
			res, ok := manifest[all[i].r.ID.String()]
			switch {
			case applied[i], keptHides && kept[i]:
			case ok && slices.ContainsFunc(verify.Bases(), func(b verify.Base) bool { return res.Op[b] != verify.OpUpdate }):
				// kapp does not update the manifest, the changed pair, under a base: no change of
				// the resource is shown (verify.Shown asks that first, of the same pair)
			default:
				rest = append(rest, i)
			}
		}
		if shown, err = shownWith(configs, rest, manifest); err != nil {
			return nil, nil, err
		}
		for i := range all {
			shown[i] = shown[i] || applied[i]
		}
		return shown, applied, nil
	}
	every := make([]int, len(all))
	for i := range every {
		every[i] = i
	}
	inForce, applied, err := judged(configs, every, true)
	if err != nil {
		return nil, err
	}
	// only a change the rules in force hide is told from kapp's own behaviour (a change kapp's
	// built-in rules alone keep is still asked about on its own)
	var hiddenInForce []int
	for i := range all {
		if !inForce[i] {
			hiddenInForce = append(hiddenInForce, i)
		}
	}
	builtin, _, err := judged(nil, hiddenInForce, false)
	if err != nil {
		return nil, err
	}
	// a removal kapp shows may still be put back by the server from what the rules copied (a
	// pod spec's serviceAccountName from serviceAccount, newcomer8 N8-6): judged on what the server
	// makes of the object kapp applies, as the mutation check's removals are (one the joint probe
	// found applied was: neither the object nor what the server makes of it holds it)
	var removals []mutation
	at := map[int]int{} // removals' index -> all's
	var defaults *classify.Removals
	for i, m := range all {
		if m.removed && inForce[i] && !applied[i] {
			if defaults == nil {
				if defaults, err = classify.NewRemovals(in.Report); err != nil {
					return nil, err
				}
			}
			m.value, m.key, m.probed, m.stored = v.Pending[pendingAt[i]].Finding.Live, m.path, true, defaults.Stored
			at[len(removals)] = i
			removals = append(removals, m)
		}
	}
	kept, err := v.removalsKept(in, together(removals), configs)
	if err != nil {
		return nil, err
	}
	putBack := map[int]bool{}
	removedAt := map[string]int{} // a removal's resource and field -> all's index
	for j, m := range removals {
		all[at[j]].stored = m.stored
		removedAt[m.r.ID.String()+" "+m.what] = at[j]
	}
	for _, k := range kept {
		if i, ok := removedAt[k.r.ID.String()+" "+k.what]; ok {
			putBack[i] = true
		}
	}
	// hidden by the built-in rules alone, other than a written reference or a change the server
	// does not make either (newcomer7 N7-15: a warning to recreate the Service, not a rule's hiding)
	var ownBehaviour []int
	for _, i := range hiddenInForce {
		if !builtin[i] && !refs[i] && !serverKeeps[i] {
			ownBehaviour = append(ownBehaviour, i)
		}
	}
	keptLive, err := builtinKept(all, ownBehaviour)
	if err != nil {
		return nil, err
	}
	v.PendingProbes += 2 * len(ownBehaviour)
	var out []Hidden
	blame := newBlame(in)
	written := map[string]bool{} // the references kapp's deploy writes as the live ones
	for i, m := range all {
		if refs[i] && !builtin[i] && !inForce[i] {
			// the manifest's base name, which kapp writes as the live version's name: no change
			// to apply, though the manifest and the live object differ (probe11 P11-3)
			written[m.r.ID.String()+" "+m.what] = true
			continue
		}
		if keptLive[i] {
			h := Hidden{Resource: m.r.ID, Path: m.what, Rule: builtinRuleOf(m.r, m.path), How: builtinHow, Builtin: true}
			out = append(out, h)
			continue
		}
		if builtin[i] && !inForce[i] || putBack[i] {
			h := Hidden{Resource: m.r.ID, Path: m.what}
			switch {
			case m.removed:
				h.How, h.Removed = removedHow, true
			case redefaulted[i]:
				h.How, h.Redefaulted = redefaultedHow, true
				if f := v.Pending[pendingAt[i]].Finding; f.CRDDefault != "" {
					h.How, h.CRD = crdDefaultHow(f), f.CRDDefault
				}
			}
			h.Rule, h.At = blame.responsible(m.r, m.path)
			if putBack[i] {
				var derived bool
				if h.Rule, h.At, derived = blame.removal(m.r, m.path, m.stored); derived {
					h.How = derivedHow
				}
			}
			out = append(out, h)
		}
	}
	v.Pending = slices.DeleteFunc(v.Pending, func(p Residual) bool { return written[p.Resource.String()+" "+p.Finding.Path.String()] })
	// nor a reason kapp still updates the resource (generate's text listed and counted it,
	// newcomer13 N13-1); were they its only ones, kapp updates it for another, which stays listed
	for i := range v.Updates {
		u := &v.Updates[i]
		fields := slices.DeleteFunc(slices.Clone(u.Fields), func(f classify.Finding) bool { return written[u.Resource.String()+" "+f.Path.String()] })
		if len(fields) > 0 {
			u.Fields = fields
		}
	}
	return out, nil
}

// removedHow is what kapp does with a removal made in Git that the rules put back.
const removedHow = "the object kapp applies still holds the field once the manifest no longer declares it (a removal made in Git): kapp never removes it"

// redefaultedHow is what kapp does with a default the server gives the manifest otherwise than
// kapp's last apply, which the rules keep (a NetworkPolicy's policyTypes once Git adds egress
// rules): the field is the server's on both sides, the change is Git's elsewhere in the object.
const redefaultedHow = "the object kapp applies holds the live value, the API server's default for kapp's last apply, where its default for the manifest is another (a change made in Git elsewhere in the object): kapp never applies it"

// crdDefaultHow is redefaultedHow for a default of a custom resource's CRD that the manifests
// change, or that an earlier version of the CRD gave (classify.Finding.CRDDefault, newcomer15
// N15-2).
func crdDefaultHow(f classify.Finding) string {
	if f.CRDEarlier {
		return "the object kapp applies holds the live value, a default of an earlier version of CRD " + f.CRDDefault + ", where the CRD now defaults it otherwise (a change made in Git to the CRD): kapp never applies it"
	}
	return "the object kapp applies holds the live value, the default of CRD " + f.CRDDefault + " as the cluster has it, where the CRD the manifests declare, which kapp applies first, defaults it otherwise (a change made in Git to the CRD): kapp never applies it"
}

// wouldRemoveHow is removedHow for the mutation check's removal, which no manifest made
// (newcomer6 N6-7: the finding stated a removal made in Git where the manifest still declared
// the field).
const wouldRemoveHow = "if Git removed the field from the manifest, the object kapp applies would still hold it: kapp would never remove it"

// revert sets the field at p (by index) in desired back to what kapp last applied, which a
// pending change's live object still holds: its value added where the manifest dropped the
// field, else as neutralise sets it.
func revert(desired, live map[string]any, p fielddiff.Path) {
	v, inLive := p.Get(live)
	parent, ok := p[:len(p)-1].Get(desired)
	m, isMap := parent.(map[string]any)
	if name := p[len(p)-1].FieldName; inLive && ok && isMap && name != nil {
		m[*name] = v
		return
	}
	neutralise(desired, live, p)
}

// inertHow says what kapp does with a resource whose applied object carries the annotation key
// (verify.AppliesNothing).
func inertHow(key string) string {
	switch key {
	case kappconv.NoopAnnotation:
		return "kapp reports noop and applies nothing to the resource"
	case kappconv.ExistsAnnotation:
		return "kapp keeps the resource as it is on the cluster and applies nothing to it"
	}
	return "kapp reports an update and applies nothing (update strategy skip)"
}
