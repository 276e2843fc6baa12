package kappglobal

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"carvel.dev/kapp/pkg/kapp/yttresmod"
	"sigs.k8s.io/yaml"

	"github.com/rebasegen/rebasegen/generator/yttrender"
)

// yttMemo remembers the results of kapp's ytt rebase rules. ytt is serialised (yttMu) and each
// evaluation compiles the overlay program and re-parses the resources as YAML, so it dominates
// verification; kapp evaluates the same rule on the same resources several times per pair (once
// per base, and again when it recalculates the last-applied change), and generate's mutation
// runs repeat the live side of every pair. An overlay is a pure function of the program and the
// resources, which kapp serialises as YAML from their JSON: the key hashes the program and the
// JSON of the resource and of every source, so a hit is exactly what ytt would have returned.
type yttMemo struct {
	mu           sync.Mutex
	m            map[[sha256.Size]byte]ctlres.Resource
	hits, misses atomic.Int64
	off          atomic.Bool // every evaluation runs ytt, as kapp does (benchmarks of kapp's cost)
}

// yttMemoMax bounds the memo: entries are whole objects. Reuse happens within one pair (its bases,
// then its mutation runs), so a small memo cleared when full keeps nearly every hit.
const yttMemoMax = 1024

var yttResults = &yttMemo{m: map[[sha256.Size]byte]ctlres.Resource{}}

// key is ok=false when a resource does not encode (then ytt runs, unmemoised).
func (*yttMemo) key(overlay string, res ctlres.Resource, srcs map[ctlres.FieldCopyModSource]ctlres.Resource) ([sha256.Size]byte, bool) {
	h := sha256.New()
	write := func(b []byte) {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(b)))
		h.Write(n[:])
		h.Write(b)
	}
	enc := func(r ctlres.Resource) bool {
		if r == nil {
			write([]byte("nil"))
			return true
		}
		bs, err := json.Marshal(r.UnstructuredObject())
		write(bs)
		return err == nil
	}
	write([]byte(overlay))
	ok := enc(res)
	reads := programReads(overlay)
	names := make([]string, 0, len(srcs))
	for s := range srcs {
		names = append(names, string(s))
	}
	sort.Strings(names)
	for _, s := range names {
		src := srcs[ctlres.FieldCopyModSource(s)]
		switch fields, read := reads[s]; {
		case reads == nil:
			write([]byte(s))
			ok = enc(src) && ok
		case read:
			write([]byte(s))
			ok = encFields(write, src, fields) && ok
		}
	}
	var k [sha256.Size]byte
	h.Sum(k[:0])
	return k, ok
}

func (y *yttMemo) get(k [sha256.Size]byte) (ctlres.Resource, bool) {
	y.mu.Lock()
	defer y.mu.Unlock()
	r, ok := y.m[k]
	return r, ok
}

// put stores a private copy of the result; stored resources are never modified, only copied
// from (DeepCopyIntoFrom), so workers may read them concurrently.
func (y *yttMemo) put(k [sha256.Size]byte, r ctlres.Resource) {
	c := r.DeepCopy()
	y.mu.Lock()
	defer y.mu.Unlock()
	if len(y.m) >= yttMemoMax {
		clear(y.m)
	}
	y.m[k] = c
}

// apply is mod.ApplyFromMultiple through the memo; run does the real evaluation (under yttMu).
func (y *yttMemo) apply(overlay string, res ctlres.Resource, srcs map[ctlres.FieldCopyModSource]ctlres.Resource, run func() error) error {
	if y.off.Load() {
		y.misses.Add(1)
		return run()
	}
	k, ok := y.key(overlay, res, srcs)
	if ok {
		if r, hit := y.get(k); hit {
			y.hits.Add(1)
			res.DeepCopyIntoFrom(r)
			return nil
		}
	}
	y.misses.Add(1)
	if err := run(); err != nil {
		return err
	}
	if ok {
		y.put(k, res)
	}
	return nil
}

// SerialYTT returns mod, or for kapp's ytt rebase rules (yttresmod.OverlayContractV1Mod) the
// same rule run under the one ytt lock and memo: ytt's package-level state makes concurrent
// evaluations a data race, and every package that runs kapp's rebase code on several goroutines
// (classify, verify) must share the one lock.
func SerialYTT(mod ctlres.ResourceModWithMultiple) ctlres.ResourceModWithMultiple {
	if y, ok := mod.(yttresmod.OverlayContractV1Mod); ok {
		return serialYtt{y}
	}
	return mod
}

// yttToken serialises ytt rebase rules (held while one runs): ytt keeps package-level state (a
// template id counter and starlark resolve flags) that it writes on every evaluation, so
// concurrent runs race. kapp itself never evaluates two at once.
var yttToken = make(chan struct{}, 1)

// yttAbandoned is closed when an evaluation ran past its time budget: ytt cannot be cancelled, so
// that evaluation keeps the token and runs on until the process exits (in the rule child, the
// child is killed), and every evaluation waiting for the token, or asking for it later, fails with
// yttOverrun's error instead of waiting for ever. An evaluation over its memory budget closes it
// too, yttOverrun then a *YTTOverBudget.
var (
	yttAbandoned = make(chan struct{})
	abandonOnce  sync.Once
	yttOverrun   error
)

// yttTimeout is the time budget of one evaluation in nanoseconds, 0 for yttrender.RenderTimeout's.
var yttTimeout atomic.Int64

// YTTTimeout sets the time budget of each ytt rebase rule evaluation kapp's engine makes here, and
// returns a function restoring the previous one (tests lower it).
func YTTTimeout(d time.Duration) (restore func()) {
	was := yttTimeout.Swap(int64(d))
	return func() { yttTimeout.Store(was) }
}

// YTTOverrun is a ytt rebase rule's evaluation abandoned for its time budget; Overlay is the
// rule's overlay (callers that know the rules name its file from it).
type YTTOverrun struct {
	Overlay                      string
	Group, Kind, Namespace, Name string // the resource it ran on
	Timeout                      time.Duration
}

func (e *YTTOverrun) Error() string {
	return fmt.Sprintf("ytt rebase rule on %s/%s %s/%s: not done after %v (a loop that does not end?)", cmp.Or(e.Group, "core"), e.Kind, e.Namespace, e.Name, e.Timeout)
}

// YTTWithheld is a ytt rebase rule's error on a Secret, ytt's message left out: a rule's fail()
// may print the Secret's values, transformed in any way (spaced, reversed, hashed), so no text
// the rule produced is kept; Overlay is the rule's overlay (callers that know the rules name its
// file from it).
type YTTWithheld struct {
	Overlay                      string
	Group, Kind, Namespace, Name string // the resource it ran on
}

func (e *YTTWithheld) Error() string {
	return fmt.Sprintf("ytt rebase rule failed on %s/%s %s/%s: %s", cmp.Or(e.Group, "core"), e.Kind, e.Namespace, e.Name, WithheldMessage)
}

// WithheldMessage says why a YTTWithheld carries no message of ytt's.
const WithheldMessage = "ytt's message is withheld, since the rule ran on a Secret's data and its message may quote the values in any form"

// holdsSecret reports whether res or a source is a Secret: what ytt evaluates with them in
// view may print its values.
func holdsSecret(res ctlres.Resource, srcs map[ctlres.FieldCopyModSource]ctlres.Resource) bool {
	isSecret := func(r ctlres.Resource) bool { return r != nil && r.Kind() == "Secret" && r.APIGroup() == "" }
	if isSecret(res) {
		return true
	}
	for _, s := range srcs {
		if isSecret(s) {
			return true
		}
	}
	return false
}

// applyYTT is mod.ApplyFromMultiple: in the rule child, within the memory budget, where this
// executable has one (yttrender.RulesInChild) and the rule is not one of kapp's built-in ones,
// else in this process. In the child, ytt gets the bytes kapp's yttresmod gives it, and its output
// is read as yttresmod reads it, with yttresmod's messages.
func applyYTT(mod yttresmod.OverlayContractV1Mod, res ctlres.Resource, srcs map[ctlres.FieldCopyModSource]ctlres.Resource) error {
	if !yttrender.RulesInChild() || builtinOverlay(mod.OverlayYAML) {
		return mod.ApplyFromMultiple(res, srcs)
	}
	wrap := func(err error) error { return fmt.Errorf("Applying ytt (overlayContractV1): %w", err) }
	resYAML, valuesYAML, err := yttFiles(res, srcs)
	if err != nil {
		return wrap(err)
	}
	out, err := yttrender.EvalRuleInChild(mod.OverlayYAML, resYAML, valuesYAML, memoryBudget())
	if err != nil {
		return wrap(err)
	}
	rs, err := ctlres.NewResourcesFromBytes(out)
	if err != nil {
		return wrap(fmt.Errorf("Deserializing result: %w", err))
	}
	if len(rs) != 1 {
		return wrap(fmt.Errorf("Expected one resource to be returned from ytt, but was %d", len(rs)))
	}
	res.DeepCopyIntoFrom(rs[0])
	return nil
}

// yttFiles are the bytes kapp's yttresmod gives ytt: the resource as resource.yml, its sources as
// the data values file.
func yttFiles(res ctlres.Resource, srcs map[ctlres.FieldCopyModSource]ctlres.Resource) (resYAML, valuesYAML []byte, err error) {
	if resYAML, err = res.AsYAMLBytes(); err != nil {
		return nil, nil, err
	}
	values := map[string]any{}
	for src, r := range srcs {
		if r != nil {
			values[string(src)] = r.DeepCopyRaw()
		} else {
			values[string(src)] = nil
		}
	}
	valuesYAML, err = yaml.Marshal(values)
	return resYAML, valuesYAML, err
}

// memoryBudget is the memory budget of one evaluation in the rule child.
func memoryBudget() uint64 {
	if budget := yttMemory.Load(); budget != 0 {
		return budget
	}
	return yttrender.RenderMemory
}

// builtinOverlay reports whether overlay is one of kapp's built-in ytt rebase rules
// (config/default.go): kapp's own, trusted, evaluated in this process.
func builtinOverlay(overlay string) bool {
	builtinOnce.Do(func() {
		builtinOverlays = map[string]bool{}
		res, err := ctlres.NewResourceFromBytes([]byte(ctlconf.NewDefaultConfigString()))
		if err != nil {
			return
		}
		cfg, err := ctlconf.NewConfigFromResource(res)
		if err != nil {
			return
		}
		for _, r := range cfg.RebaseRules {
			if r.Ytt != nil && r.Ytt.OverlayContractV1 != nil {
				builtinOverlays[r.Ytt.OverlayContractV1.OverlayYAML] = true
			}
		}
	})
	return builtinOverlays[overlay]
}

var (
	builtinOnce     sync.Once
	builtinOverlays map[string]bool
)

// yttMemory is the memory budget of one evaluation in bytes, 0 for yttrender.RenderMemory's.
var yttMemory atomic.Uint64

// YTTMemory sets the memory budget of each ytt rebase rule evaluation made in the rule child, and
// returns a function restoring the previous one (tests lower it).
func YTTMemory(bytes uint64) (restore func()) {
	was := yttMemory.Swap(bytes)
	return func() { yttMemory.Store(was) }
}

// YTTOverBudget is a ytt rebase rule's evaluation that needed more than its memory budget; Overlay
// is the rule's overlay (callers that know the rules name its file from it).
type YTTOverBudget struct {
	Overlay                      string
	Group, Kind, Namespace, Name string // the resource it ran on
	Memory                       uint64
}

func (e *YTTOverBudget) Error() string {
	return fmt.Sprintf("ytt rebase rule on %s/%s %s/%s: %s", cmp.Or(e.Group, "core"), e.Kind, e.Namespace, e.Name, (&yttrender.MemoryExceeded{Memory: e.Memory}).Error())
}

// serialYtt is kapp's ytt rebase mod, unchanged, run under yttMu.
type serialYtt struct {
	mod yttresmod.OverlayContractV1Mod
}

func (s serialYtt) IsResourceMatching(res ctlres.Resource) bool { return s.mod.IsResourceMatching(res) }

func (s serialYtt) ApplyFromMultiple(res ctlres.Resource, srcs map[ctlres.FieldCopyModSource]ctlres.Resource) error {
	// Memoised: identical evaluations repeat per base and per mutation run, and being
	// serialised they were most of verification's time.
	return yttResults.apply(s.mod.OverlayYAML, res, srcs, func() error { return runYTT(s.mod, res, srcs) })
}

// YTTMemoStats reports how many ytt rebase evaluations were answered from the memo and how
// many ran ytt, since the last ResetYTTMemo (for benchmarks).
func YTTMemoStats() (hits, misses int64) { return yttResults.hits.Load(), yttResults.misses.Load() }

// MemoizeYTT turns the memo on (the default) or off, and returns a function restoring the previous
// setting. Off, every evaluation runs ytt as kapp itself does on a deploy: the bench measures what
// the rules cost kapp with it off, since kapp has no memo (with it on, the fixture mix's ytt rules
// looked ~25% cheaper than they are).
func MemoizeYTT(on bool) (restore func()) {
	was := !yttResults.off.Swap(!on)
	return func() { yttResults.off.Store(!was) }
}

// ResetYTTMemo empties the memo and its counters, so that a benchmark's run does not profit
// from the previous one.
func ResetYTTMemo() {
	yttResults.mu.Lock()
	defer yttResults.mu.Unlock()
	clear(yttResults.m)
	yttResults.hits.Store(0)
	yttResults.misses.Store(0)
}
