package verify

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	ctldiff "carvel.dev/kapp/pkg/kapp/diff"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"

	"github.com/rebasegen/rebasegen/internal/kappconv"
	"github.com/rebasegen/rebasegen/internal/kappglobal"
	"github.com/rebasegen/rebasegen/internal/kappprep"
)

// worker is one goroutine's kapp state: the call's Conf and a change factory of its own made from
// it (kapp's deploy builds both once for all its resources).
type worker struct {
	conf ctlconf.Conf
	mods []ctlres.ResourceModWithMultiple // the rebase mods of cf
	cf   ctldiff.ChangeFactory
}

func (in *inputs) newWorker(d detail) *worker {
	mods := rebaseMods(in.kapp, d.deploy, in.lastConfigMods, &in.ruleTime, &in.applied, &in.ytt)
	return &worker{conf: in.kapp, mods: mods, cf: ctldiff.NewChangeFactory(mods, in.kapp.DiffAgainstLastAppliedFieldExclusionMods(),
		in.kapp.DiffAgainstExistingFieldExclusionMods(), ctldiff.ChangeOpts{})}
}

func (in *inputs) verifyPair(w *worker, i int, d detail) (Result, error) {
	r := Result{Op: map[Base]Op{}, Diff: map[Base]string{}, Alone: in.alone(i)}
	if d.fingerprints {
		r.Change = map[Base]Fingerprint{}
	}
	rs, err := in.resources(i)
	if err != nil {
		return Result{}, err
	}
	start := time.Now()
	if rs, err = in.prepared(i, rs); err != nil {
		return Result{}, err
	}
	bases := Bases()
	if d.deploy {
		bases = []Base{LastApplied}
	}
	for bi, base := range bases {
		err := catch(func() error {
			ch, err := in.change(w, i, rs, base, bi == len(bases)-1)
			if err != nil {
				return err
			}
			if d.fingerprints {
				if r.Change[base], err = fingerprint(ch); err != nil {
					return err
				}
				if ch.NewResource() != nil && r.Inert == "" {
					r.Inert = AppliesNothing(ch.NewResource().UnstructuredObject())
				}
			}
			op, err := changeOp(ch)
			if err != nil {
				return err
			}
			if r.Op[base] = opName(op); r.Op[base] != OpKeep && d.text {
				r.Diff[base], err = textDiff(ch, maskRules(w.conf))
			}
			return err
		})
		if err != nil {
			return Result{}, fmt.Errorf("%s base: %w", base, err)
		}
	}
	r.Time = time.Since(start)
	in.diffTime.Add(int64(r.Time))
	return r, nil
}

// pairResources are pair i and its context parsed as kapp reads them, parsed (and the new ones
// prepared) once: each base but the last works on copies (kapp labels and rebases resources in
// place).
type pairResources struct{ news, lives []ctlres.Resource }

// prepared is rs with the new resources prepared as kapp deploy prepares them (kappprep), once
// for both bases: kapp prepares them once per deploy, before it diffs; preparing them again for
// each base took 1 s of generate's CPU at 10,000 fleet pairs. kapp's copies (ResourceImpl.DeepCopy)
// keep the object and what preparation sets besides it (its resource type), so a base diffing a
// copy of the prepared resources diffs what it would have prepared itself (but for
// kapp.k14s.io/nonce: a timestamp, set when preparing).
func (in *inputs) prepared(i int, rs pairResources) (pairResources, error) {
	var err error
	rs.news, err = kappprep.Resources(in.kapp, rs.news, in.appLabel[i])
	return rs, err
}

func (in *inputs) resources(i int) (pairResources, error) {
	var rs pairResources
	p, err := in.pairAt(i)
	if err != nil {
		return rs, err
	}
	pairs := append([]Pair{p}, p.Beside...)
	for _, j := range in.context[i] {
		c, err := in.pairAt(j)
		if err != nil {
			return rs, err
		}
		pairs = append(pairs, c)
	}
	for _, c := range pairs {
		d, l, err := encode(c)
		if err != nil {
			return rs, err
		}
		parse := desiredDecoded
		if in.deploy {
			parse = desiredResource
		}
		res, err := parse(d)
		if err != nil {
			return rs, err
		}
		rs.news = append(rs.news, res)
		if l != nil {
			live, err := liveResource(l)
			if err != nil {
				return rs, err
			}
			rs.lives = append(rs.lives, live)
		}
	}
	return rs, nil
}

// change replays the part of `kapp deploy` (cmd/app/deploy.go) between reading the files and
// printing the changes, for pair i plus the versioned pairs it may reference, and returns kapp's
// change of pair i, from rs prepared. last: nothing uses rs after this call, so kapp may change
// it in place; otherwise kapp works on copies.
func (in *inputs) change(w *worker, i int, rs pairResources, base Base, last bool) (ctldiff.Change, error) {
	newRs, existingRs, err := listed(rs, last)
	if err != nil {
		return nil, err
	}
	changes, err := ctldiff.NewChangeSetWithVersionedRs(existingRs, newRs, w.conf.TemplateRules(),
		ctldiff.ChangeSetOpts{AgainstLastApplied: base == LastApplied}, w.cf).Calculate()
	if err != nil {
		return nil, err
	}
	ch := pickChange(changes, in.key[i], in.versioned[i])
	if ch == nil {
		return nil, errors.New("kapp produced no change for this resource")
	}
	return ch, nil
}

// rebasedNew is the new resource of kapp's change of pair i under base b, from rs prepared, for
// a pair with a live object that no other pair enters (alone: no versioned pair); last as for
// change. It is what diff/change_factory.go makes it, without the rest of the change (under the
// last-applied base kapp also recalculates its last-applied copy, which the new resource does
// not depend on): the manifest without the fields the diffAgainstExisting exclusions remove,
// rebased against the live object as kapp listed it (last-applied base) or that object without
// its history and those fields (live base, NewExactChange).
func (in *inputs) rebasedNew(w *worker, rs pairResources, b Base, last bool) (map[string]any, error) {
	newRs, existingRs, err := listed(rs, last)
	if err != nil {
		return nil, err
	}
	excluded := w.conf.DiffAgainstExistingFieldExclusionMods()
	newRes, err := ctldiff.NewResourceWithoutHistory(newRs[0], excluded).Resource()
	if err != nil {
		return nil, err
	}
	existing := existingRs[0]
	if b == Live {
		if existing, err = ctldiff.NewResourceWithoutHistory(existing, excluded).Resource(); err != nil {
			return nil, err
		}
	}
	res, err := ctldiff.NewRebasedResource(existing, newRes, w.mods).Resource()
	if err != nil {
		return nil, err
	}
	return res.UnstructuredObject(), nil
}

// listed is rs as kapp deploy holds them when it calculates its changes
// (calculateAndPresentChanges): the live objects as kapp lists them (asListedByKapp), and the
// resources renewed (diff.RenewableResources); last as for change: rs itself, else copies.
func listed(rs pairResources, last bool) (newRs, existingRs []ctlres.Resource, err error) {
	newRs, existingRs = rs.news, rs.lives
	if !last {
		newRs, existingRs = copies(rs.news), copies(rs.lives)
	}
	for _, live := range existingRs {
		if err := asListedByKapp(live); err != nil {
			return nil, nil, err
		}
	}
	if err := ctldiff.NewRenewableResources(existingRs, newRs).Prepare(); err != nil {
		return nil, nil, err
	}
	return newRs, existingRs, nil
}

func copies(rs []ctlres.Resource) []ctlres.Resource {
	out := make([]ctlres.Resource, len(rs))
	for i, r := range rs {
		out[i] = r.DeepCopy()
	}
	return out
}

// rebaseMods are kapp's (its change factory's), as kappglobal.RebaseMod runs them (deploy: as
// kapp runs them, kappglobal.KappMod), the last timed rebase mods (the last config's rules) adding
// the time kapp spends in them to spent (nil: none timed), and every application of a mod counted
// in applied, of a ytt rule also in ytt.
func rebaseMods(conf ctlconf.Conf, deploy bool, timed int, spent, applied, ytt *atomic.Int64) []ctlres.ResourceModWithMultiple {
	mods := conf.RebaseMods()
	for i, m := range mods {
		isYTT := kappglobal.IsYTT(m)
		if deploy {
			m = kappglobal.KappMod(m)
		} else {
			m = kappglobal.RebaseMod(m)
		}
		if spent != nil && i >= len(mods)-timed {
			m = timedMod{m, spent}
		}
		mods[i] = countedMod{m, applied, ytt, isYTT}
	}
	return mods
}

// timedMod is a kapp rebase mod, unchanged, adding the time kapp spends in it to spent.
type timedMod struct {
	mod   ctlres.ResourceModWithMultiple
	spent *atomic.Int64
}

func (t timedMod) IsResourceMatching(res ctlres.Resource) bool {
	defer t.since(time.Now())
	return t.mod.IsResourceMatching(res)
}

func (t timedMod) ApplyFromMultiple(res ctlres.Resource, srcs map[ctlres.FieldCopyModSource]ctlres.Resource) error {
	defer t.since(time.Now())
	return t.mod.ApplyFromMultiple(res, srcs)
}

func (t timedMod) since(start time.Time) { t.spent.Add(int64(time.Since(start))) }

// countedMod is a kapp rebase mod, unchanged, counting its applications (Cost.Applied, Cost.YTT).
type countedMod struct {
	ctlres.ResourceModWithMultiple
	applied, ytt *atomic.Int64
	isYTT        bool
}

func (c countedMod) ApplyFromMultiple(res ctlres.Resource, srcs map[ctlres.FieldCopyModSource]ctlres.Resource) error {
	c.applied.Add(1)
	if c.isYTT {
		c.ytt.Add(1)
	}
	return c.ResourceModWithMultiple.ApplyFromMultiple(res, srcs)
}

// asListedByKapp applies what kapp does to objects it lists (resources/identified_resources_list.go):
// objects with a kapp.k14s.io/identity annotation for another resource are "transient" (made by a
// controller, never versioned), and the identity annotation is removed. Removing the key leaves
// `annotations: {}` when it was the only one, exactly as in kapp.
//
// Deviations: kapp strips the annotation only when its apiVersion equals the version it read, but it
// reads every served version and keeps the matching one, so we strip any valid annotation; and a
// live object with no identity annotation is not marked transient (a capture that dropped it, or a
// resource kapp adopts, is much likelier here than a controller-made child).
func asListedByKapp(live ctlres.Resource) error {
	id := ctlres.NewIdentityAnnotation(live)
	if !hasKey(live.Annotations(), kappconv.IdentityAnnotation) {
		return nil
	}
	if !id.Valid() {
		live.MarkTransient(true)
		return nil
	}
	return id.RemoveMod().Apply(live)
}

// pickChange finds pair i's change among the unit's changes. A changed versioned resource shows up
// as an "add" of NAME-ver-(N+1) with the update's diff, an unchanged one as "keep" of NAME-ver-N;
// older versions come later as "noop".
func pickChange(changes []ctldiff.Change, key string, versioned bool) ctldiff.Change {
	for _, ch := range changes {
		res := ch.NewOrExistingResource()
		if !versioned {
			if ctlres.NewUniqueResourceKey(res).String() == key {
				return ch
			}
			continue
		}
		base, ver := kappconv.SplitVersionedName(res.Name())
		if hasKey(res.Annotations(), kappconv.Versioned) && ver != "" && ch.Op() != ctldiff.ChangeOpNoop &&
			ctlres.NewUniqueResourceKeyWithCustomName(res, base).String() == key {
			return ch
		}
	}
	return nil
}

func opName(op ctldiff.ChangeOp) Op {
	switch op {
	case ctldiff.ChangeOpAdd:
		return OpCreate
	case ctldiff.ChangeOpUpdate:
		return OpUpdate
	case ctldiff.ChangeOpKeep, ctldiff.ChangeOpNoop:
		return OpKeep
	case ctldiff.ChangeOpExists:
		return OpExists
	case ctldiff.ChangeOpDelete:
		return OpDelete
	}
	return Op(op)
}
