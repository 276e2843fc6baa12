// Package verify is rebasegen's ground truth: it asks carvel.dev/kapp's own diff engine which op
// `kapp deploy --diff-run` would report for each desired/live pair, under both existing-side bases
// kapp can pick. Nothing here re-implements kapp's diff; we only feed kapp what a deploy would feed it.
package verify

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/internal/kappconv"
	"github.com/rebasegen/rebasegen/internal/kappglobal"
	"github.com/rebasegen/rebasegen/internal/parallel"
)

// Pair is one resource: what the user deploys and what the cluster holds.
type Pair struct {
	// Desired must already carry its namespace (none for cluster-scoped kinds): kapp would ask
	// discovery, which we cannot do offline.
	Desired *unstructured.Unstructured
	// Live is the object as the API server returns it (kapp.k14s.io/identity annotation included);
	// nil means kapp would create the resource.
	Live *unstructured.Unstructured
	// Source is where the manifest was read (a file's document), naming the pair in errors; ""
	// names it by its index. LiveSource is where the live object was read ("": not known).
	Source, LiveSource string
	// Beside are the deploy's versioned pairs of the same app, this one's own resource left out,
	// as the deploy holds them: kapp diffs the pair with them, writing their versioned names into
	// its references (diff/versioned_resource.go), wherever it is asked about apart from them
	// (a changed copy of the pair). nil: the versioned pairs of the same call of its app.
	Beside []Pair
}

// Base is the existing side kapp diffs against.
type Base string

const (
	// LastApplied is kapp's default (--diff-against-last-applied=true): the recorded
	// kapp.k14s.io/original copy rebased on live when the recorded md5 still matches, else live.
	LastApplied Base = "last-applied"
	// Live is what kapp falls back to after an md5 mismatch (or with --diff-against-last-applied=false).
	Live Base = "live"
)

// Bases lists both bases in a fixed order; a fresh slice on every call.
func Bases() []Base { return []Base{LastApplied, Live} }

// Op is what kapp would do with a resource, as Result.Op reports it.
type Op string

const (
	OpCreate Op = "create" // kapp "add"; also a new NAME-ver-N of a changed versioned resource
	OpUpdate Op = "update"
	OpKeep   Op = "keep"   // kapp "keep" and "noop" (kapp.k14s.io/noop annotation)
	OpExists Op = "exists" // kapp.k14s.io/exists annotation and no live object
	OpDelete Op = "delete" // only if kapp pairs things in a way we did not expect
)

// Result is kapp's verdict for one Pair.
type Result struct {
	Op map[Base]Op
	// Diff is kapp's text diff as `kapp deploy --diff-changes` prints it (context 2, line numbers,
	// diffMaskRules applied so Secret values are masked); "" when Op is keep.
	Diff map[Base]string
	// Time is what kapp's diff of the pair took, both bases.
	Time time.Duration
	// Change fingerprints, per base, the resources kapp's change was made of: kapp's op and diff
	// are functions of them alone (see Shown). Only Baselines sets it.
	Change map[Base]Fingerprint
	// Inert is the annotation that makes kapp apply nothing to the resource (AppliesNothing) in
	// the object kapp's change applies (the one Rebased gives) under the first base where it has
	// one, "" where it has none under either: what the mutation check asks of the unchanged pair,
	// answered by the verification where it is the same question (Alone). Only Baselines sets it
	// (and Change).
	Inert string
	// Alone: kapp's verdict depended on this pair and the configs only. No other pair of the call
	// entered it: no versioned pair of its app, no labelled config ConfigMap, and the app label
	// is the live object's own. The same pair verified alone (or beside others) with the same
	// configs gets the same result.
	Alone bool
}

// Verify runs kapp's diff for every pair under both bases. configs are kapp Config documents
// (kapp.k14s.io/v1alpha1 Config, or a ConfigMap labelled kapp.k14s.io/config) used after kapp's
// built-in defaults, in order (after any labelled ConfigMaps among the desired objects, which kapp
// reads as config too). Results are in input order. On error the results are nil and the error
// names every failing pair (or config rule).
func Verify(pairs []Pair, configs []*unstructured.Unstructured) ([]Result, error) {
	return VerifyEach(len(pairs), func(i int) (Pair, error) { return pairs[i], nil }, configs, nil)
}

// VerifyEach is Verify for n pairs that pairAt returns, each time it is asked, as a new copy: a
// caller holding many pairs compactly decodes one only while kapp reads it (peak memory at fleet
// scale). pairAt is called from several goroutines, more than once per pair, and its errors are
// returned. progress, unless nil, is called as each pair's verdict is in, from several goroutines.
func VerifyEach(n int, pairAt func(i int) (Pair, error), configs []*unstructured.Unstructured, progress func()) ([]Result, error) {
	res, _, err := VerifyCost(n, pairAt, configs, progress)
	return res, err
}

// Cost is what a verification cost kapp's engine, summed over pairs and both bases (workers run
// at once: more than the wall time).
type Cost struct {
	Diff  time.Duration // kapp's diff of every pair, its rules included
	Rules time.Duration // the part of Diff spent in the rebase rules of the last config
	// Applied counts the rebase mods kapp applied, every config's: a copy or remove rule's path,
	// or a ytt overlay, on a resource it matched, each time kapp rebases one (per base, and again
	// when kapp recalculates the last-applied change).
	Applied int64
	YTT     int64 // of those, ytt overlays (each one a ytt evaluation, or a memo's answer)
}

// VerifyCost is VerifyEach that also reports the cost to kapp's engine, and how much of it the
// last config's rebase rules took (the rules a caller generated: their price on every deploy).
func VerifyCost(n int, pairAt func(i int) (Pair, error), configs []*unstructured.Unstructured, progress func()) ([]Result, Cost, error) {
	return verifyCost(n, pairAt, configs, progress, detail{text: true})
}

// Ops is what one `kapp deploy` computes for the pairs as kapp-controller runs it (no
// --diff-changes, --diff-against-last-applied left true), for measuring what kapp pays: each
// pair's change under the last-applied base alone (kapp falls back to the live object itself, in
// the same change, where the recorded md5 does not match: diff.ChangeFactory
// NewChangeAgainstLastApplied), its unmasked text diff computed to decide the op
// (diff.ChangeImpl.Op) and no masked one (Result.Diff stays empty, Result.Op holds LastApplied
// only), on one goroutine as kapp's ChangeSet.Calculate runs, with kapp's rebase mods as kapp runs
// them (kappglobal.KappMod: no memo, no budget). The configs' rules must already have run within
// their budgets on these pairs (a verification of them), or be rebasegen's.
func Ops(n int, pairAt func(i int) (Pair, error), configs []*unstructured.Unstructured) ([]Result, Cost, error) {
	return verifyCost(n, pairAt, configs, nil, detail{deploy: true})
}

// Baselines is VerifyCost for pairs that changed copies of them will be compared against (Shown):
// each Result also holds the fingerprints of kapp's changes (Result.Change), which cost kapp's
// diff a few percent, and the annotation of each change's object that makes kapp apply nothing
// (Result.Inert).
func Baselines(n int, pairAt func(i int) (Pair, error), configs []*unstructured.Unstructured, progress func()) ([]Result, Cost, error) {
	return verifyCost(n, pairAt, configs, progress, detail{text: true, fingerprints: true})
}

// detail is what a Result holds beside kapp's ops.
type detail struct {
	text         bool // Diff: kapp's masked text diff of every change, as --diff-changes prints it
	fingerprints bool // Change
	deploy       bool // as one kapp deploy runs (Ops)
}

func verifyCost(n int, pairAt func(i int) (Pair, error), configs []*unstructured.Unstructured, progress func(), d detail) ([]Result, Cost, error) {
	results := make([]Result, n)
	in, err := run(n, pairAt, configs, progress, d, func(in *inputs, w *worker, i int) (err error) {
		results[i], err = in.verifyPair(w, i, d)
		return err
	})
	if err != nil {
		return nil, Cost{}, err
	}
	return results, Cost{Diff: time.Duration(in.diffTime.Load()), Rules: time.Duration(in.ruleTime.Load()), Applied: in.applied.Load(), YTT: in.ytt.Load()}, nil
}

// run calls each for every pair on every core (d.deploy: on one goroutine, as kapp does), with a
// worker of its own per goroutine, and returns the inputs it read or the errors naming every
// failing pair.
func run(n int, pairAt func(i int) (Pair, error), configs []*unstructured.Unstructured, progress func(), d detail, each func(in *inputs, w *worker, i int) error) (*inputs, error) {
	kappglobal.Prepare()
	in, err := newInputs(n, pairAt, configs)
	if err != nil {
		return nil, err
	}
	in.deploy = d.deploy
	errs := make([]error, n)
	forEach := parallel.Each
	if d.deploy {
		forEach = serially
	}
	forEach(n, func() func(int) {
		// One change factory per worker: fresh mods, timing this call's rules. The Conf they are
		// made from is shared (kappConfs); the shared state kapp does have (its diff masking,
		// ytt) is serialised in kapp.go; go test -race covers both.
		w := in.newWorker(d)
		return func(i int) {
			errs[i] = each(in, w, i)
			if progress != nil {
				progress()
			}
		}
	})
	var failed []error
	for i, e := range errs {
		if e != nil {
			if p, err := pairAt(i); err == nil {
				e = withoutSecretValues(e, p)
			}
			// escaped once the Secret values are taken out: the names and kapp's text are the inputs'
			failed = append(failed, kappconv.Readable(fmt.Errorf("%s: %w", in.desc[i], e)))
		}
	}
	return in, joinErrors(failed)
}

// Rebased calls each, for each of n pairs and each base, with the object kapp's change holds as
// the new resource (diff.ChangeImpl.NewResource): the one kapp diffs, decides the op on
// (kapp.k14s.io/noop, kapp.k14s.io/exists) and updates the live object with
// (clusterapply/add_or_update_change.go); nil where kapp has none. kapp makes it from the
// manifest as kapp deploy prepares it, without the fields diffAgainstExistingFieldExclusionRules
// exclude, rebased by kapp's built-in rules and then the configs' in order, each rule matched on
// the resource as the earlier ones left it (diff/change_factory.go, diff/rebased_resource.go):
// kapp's code decides which rule acts, nothing rebasegen guesses. Where kapp fails (or panics)
// making it, or preparing the manifest before (a CustomResourceDefinition's spec.group kapp
// reads as a string to place resources into namespaces), each gets the error instead (a rule
// failing on a value: kapp's deploy would stop there). each is called from several goroutines;
// obj is kapp's, to be read during the call only.
func Rebased(n int, pairAt func(i int) (Pair, error), configs []*unstructured.Unstructured, each func(i int, b Base, obj map[string]any, err error)) error {
	_, err := run(n, pairAt, configs, nil, detail{}, func(in *inputs, w *worker, i int) error {
		rs, err := in.resources(i)
		if err != nil {
			return err
		}
		prepErr := catch(func() (err error) {
			rs, err = in.prepared(i, rs)
			return err
		})
		bases := Bases()
		for bi, b := range bases {
			var obj map[string]any
			err := catch(func() error {
				if prepErr != nil { // kapp prepares once for both bases: both fail
					return prepErr
				}
				last := bi == len(bases)-1
				if !in.versioned[i] && !in.hasVersionedAnn[i] && len(in.context[i]) == 0 && !in.beside[i] && len(rs.lives) == 1 {
					var err error
					obj, err = in.rebasedNew(w, rs, b, last)
					return err
				}
				ch, err := in.change(w, i, rs, b, last)
				if err == nil && ch.NewResource() != nil {
					obj = ch.NewResource().UnstructuredObject()
				}
				return err
			})
			if err != nil {
				if p, perr := in.pairAt(i); perr == nil {
					err = withoutSecretValues(err, p)
				}
				err = fmt.Errorf("%s base: %w", b, kappconv.Readable(err))
			}
			each(i, b, obj, err)
		}
		return nil
	})
	return err
}

// serially is parallel.Each on one goroutine: kapp's deploy calculates its changes one after another.
func serially(n int, newWorker func() func(i int)) {
	work := newWorker()
	for i := range n {
		work(i)
	}
}

// AppliesNothing returns the annotation of obj (the object kapp applies: the manifest with the
// rules in force applied) that makes kapp apply nothing to it, "" when none does: kapp reports noop
// for one annotated kapp.k14s.io/noop and keeps an existing one annotated kapp.k14s.io/exists
// (diff/change.go op), and reports an update but applies nothing with the update strategy skip
// (clusterapply/add_or_update_change.go UpdateSkipStrategy), whoever wrote the annotation there,
// the manifest or a rule.
func AppliesNothing(obj map[string]any) string {
	a, _, _ := unstructured.NestedMap(obj, "metadata", "annotations")
	for _, k := range []string{kappconv.NoopAnnotation, kappconv.ExistsAnnotation} {
		if _, ok := a[k]; ok {
			return k
		}
	}
	if a[kappconv.UpdateStrategy] == "skip" {
		return kappconv.UpdateStrategy
	}
	return ""
}
