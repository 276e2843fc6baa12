package verify

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/internal/escape"
	"github.com/rebasegen/rebasegen/internal/kappconv"
	"github.com/rebasegen/rebasegen/internal/kappprep"
)

// inputs is everything the workers read. Every computation encodes the pairs it needs afresh
// (encoded) and parses its own private kapp resources: kapp mutates resources in place (labels,
// versioned names, references), and nothing mutable is shared between goroutines. Pairs are not
// kept encoded: at fleet scale that was a second copy of every object (peak memory).
type inputs struct {
	n               int // pairs
	pairAt          func(int) (Pair, error)
	desc            []string     // each pair named for error messages (label)
	key             []string     // kapp's unique key of the desired resource (namespace/group/kind/name)
	appLabel        []string     // kapp.k14s.io/app value the new resources are labelled with
	versioned       []bool       // the pair is the NAME-ver-N change of a versioned resource
	hasVersionedAnn []bool       // the desired object has kapp's versioned annotation
	liveApp         []string     // the live object's kapp.k14s.io/app label
	context         [][]int      // other versioned pairs of the same app, see assignVersionedContext
	beside          []bool       // the pair brings its context (Pair.Beside): context is not used
	configJSON      [][]byte     // config sources after kapp's defaults, in order
	pairConfigs     int          // of those, labelled config ConfigMaps among the pairs
	configOfPair    []bool       // the pair's desired object is such a ConfigMap
	lastConfigMods  int          // rebase mods the last config source makes (its rules, timed)
	kapp            ctlconf.Conf // kapp's Conf of configJSON, shared by the workers (see kappConfs)
	diffTime        atomic.Int64
	ruleTime        atomic.Int64
	deploy          bool         // parse the desired objects as kapp does (Ops), see desiredDecoded
	applied         atomic.Int64 // rebase mods applied (Cost.Applied)
	ytt             atomic.Int64 // of those, ytt rules (Cost.YTT)
}

func newInputs(n int, pairAt func(int) (Pair, error), configs []*unstructured.Unstructured) (*inputs, error) {
	in := &inputs{
		n: n, pairAt: pairAt, desc: make([]string, n),
		key: make([]string, n), appLabel: make([]string, n), versioned: make([]bool, n), context: make([][]int, n),
		hasVersionedAnn: make([]bool, n), liveApp: make([]string, n), configOfPair: make([]bool, n), beside: make([]bool, n),
	}

	var errs []error
	for i := range n {
		p, err := pairAt(i)
		if err != nil {
			return nil, err
		}
		in.desc[i] = label(i, p)
		if err := catch(func() error { return in.addPair(i, p) }); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", escape.Text(in.desc[i]), err))
		}
	}
	if err := joinErrors(errs); err != nil {
		return nil, err
	}

	seen := map[string]int{}
	for i, k := range in.key {
		if j, dup := seen[k]; dup {
			errs = append(errs, fmt.Errorf("%s: same resource as %s", in.desc[i], in.desc[j]))
		}
		seen[k] = i
	}

	// A labelled ConfigMap among the configs that is also a pair's desired object is read from
	// the pair, as kapp reads each resource once (and a mutated pair's copy is the one kapp sees).
	paired := map[string]bool{}
	for i := range n {
		if in.configOfPair[i] {
			paired[in.key[i]] = true
		}
	}
	for i, c := range configs {
		label := fmt.Sprintf("config %d (%s)", i, describe(c))
		if c == nil {
			errs = append(errs, fmt.Errorf("%s: nil", label))
			continue
		}
		if _, labelled := c.GetLabels()[kappconv.ConfigLabel]; labelled && c.GetAPIVersion() != kappconv.ConfigAPIVersion &&
			paired[ctlres.NewUniqueResourceKey(ctlres.NewResourceUnstructured(*c, ctlres.ResourceType{})).String()] {
			continue
		}
		bs, err := json.Marshal(c.Object)
		mods := 0
		if err == nil {
			err = catch(func() (err error) { mods, err = kappConfs.validate(bs); return err })
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", label, err))
			continue
		}
		in.configJSON = append(in.configJSON, bs)
		in.lastConfigMods = mods
	}
	if err := joinErrors(errs); err != nil {
		return nil, err
	}
	in.assignAppLabels()
	in.assignVersionedContext()

	var err error
	if in.kapp, err = kappConfs.conf(in.configJSON, in.conf); err != nil {
		return nil, err
	}
	return in, nil
}

func (in *inputs) addPair(i int, p Pair) error {
	if p.Desired == nil {
		return errors.New("desired object is nil")
	}
	if p.Desired.GetAPIVersion() == kappconv.ConfigAPIVersion {
		// kapp removes every kapp.k14s.io/v1alpha1 document from the apply set.
		return errors.New("a kapp Config is not a resource: pass it in configs")
	}
	if p.Desired.GetAPIVersion() == "" || p.Desired.GetKind() == "" || p.Desired.GetName() == "" {
		return errors.New("desired object needs apiVersion, kind and metadata.name")
	}

	// Read, not parsed: the key, labels, annotations and names are strings, the same in the
	// objects as in what kapp parses from their JSON (each worker does that, see resources).
	desired := ctlres.NewResourceUnstructured(*p.Desired, ctlres.ResourceType{})
	in.key[i] = ctlres.NewUniqueResourceKey(desired).String()

	if _, ok := desired.Labels()[kappconv.ConfigLabel]; ok {
		// kapp reads such a ConfigMap as config AND applies it: keep it as a pair too.
		desiredJSON, _, err := encode(Pair{Desired: p.Desired})
		if err != nil {
			return err
		}
		if _, err := kappConfs.validate(desiredJSON); err != nil {
			return err
		}
		in.configJSON = append(in.configJSON, desiredJSON)
		in.pairConfigs++
		in.configOfPair[i] = true
	}

	_, isVersioned := desired.Annotations()[kappconv.Versioned]
	in.versioned[i], in.hasVersionedAnn[i] = isVersioned, isVersioned
	in.beside[i] = p.Beside != nil
	for _, b := range p.Beside {
		if b.Desired == nil {
			return errors.New("a pair beside it has no desired object")
		}
		if k := ctlres.NewUniqueResourceKey(ctlres.NewResourceUnstructured(*b.Desired, ctlres.ResourceType{})).String(); k == in.key[i] {
			return fmt.Errorf("the pairs beside it hold the same resource (kapp key %q)", k)
		}
	}
	if p.Live == nil {
		return nil
	}
	in.liveApp[i] = p.Live.GetLabels()[kappconv.AppLabel]
	if err := OriginalNull(p.Live, p.LiveSource); err != nil {
		return err
	}

	live := ctlres.NewResourceUnstructured(*p.Live, ctlres.ResourceType{})
	liveKey := ctlres.NewUniqueResourceKey(live).String()
	base, ver := kappconv.SplitVersionedName(live.Name())
	if _, err := strconv.Atoi(ver); isVersioned && ver != "" && err != nil {
		// kapp panics on it, and it would break every pair diffed with this one.
		return fmt.Errorf("live name %q: kapp expects NAME-ver-<number>", live.Name())
	}
	switch {
	case isVersioned && ver != "" && ctlres.NewUniqueResourceKeyWithCustomName(live, base).String() == in.key[i]:
		// Live is NAME-ver-N: the pair is about the versioned change.
	case liveKey == in.key[i]:
		// Same name: a plain resource, or the kapp.k14s.io/versioned-keep-original copy. (A resource
		// that just became versioned stays versioned: kapp creates NAME-ver-1 and deletes NAME.)
		in.versioned[i] = isVersioned && !hasKey(desired.Annotations(), kappconv.VersionedKeepOriginal)
	default:
		return fmt.Errorf("live object %s is not the same resource (kapp keys %q and %q)", describe(p.Live), liveKey, in.key[i])
	}
	return nil
}

// encode returns a pair as kapp reads it: JSON (live nil when there is no live object).
func encode(p Pair) (desired, live []byte, err error) {
	if desired, err = json.Marshal(p.Desired.Object); err != nil {
		return nil, nil, fmt.Errorf("encoding desired: %w", err)
	}
	if p.Live != nil {
		if live, err = json.Marshal(p.Live.Object); err != nil {
			return nil, nil, fmt.Errorf("encoding live: %w", err)
		}
	}
	return desired, live, nil
}

// assignAppLabels picks the kapp.k14s.io/app value kapp would label new resources with: the live
// object's own value, else the app's (the most common value among the live objects).
func (in *inputs) assignAppLabels() {
	counts := map[string]int{}
	for _, v := range in.liveApp {
		if v != "" {
			counts[v]++
		}
	}
	common, best := kappprep.FallbackAppLabel, 0
	for v, c := range counts {
		if c > best || (c == best && v < common) {
			common, best = v, c
		}
	}
	for i, v := range in.liveApp {
		in.appLabel[i] = common
		if v != "" {
			in.appLabel[i] = v
		}
	}
}

// assignVersionedContext: a versioned resource rewrites references to itself in other resources
// of the same deploy (a Deployment's configMapRef becomes NAME-ver-N), and kapp's diff of those
// resources sees the rewritten name. So every pair is diffed together with all versioned pairs of
// its app. Plain pairs never affect each other, which is what makes per-pair work possible.
func (in *inputs) assignVersionedContext() {
	byApp := map[string][]int{}
	for i, ok := range in.hasVersionedAnn {
		if ok {
			byApp[in.appLabel[i]] = append(byApp[in.appLabel[i]], i)
		}
	}
	for i := range in.n {
		for _, j := range byApp[in.appLabel[i]] {
			if j != i && !in.beside[i] {
				in.context[i] = append(in.context[i], j)
			}
		}
	}
}

// conf builds kapp's Conf afresh: built-in defaults, then the config sources in order.
func (in *inputs) conf() (ctlconf.Conf, error) {
	var rs []ctlres.Resource
	for _, bs := range in.configJSON {
		r, err := desiredResource(bs)
		if err != nil {
			return ctlconf.Conf{}, err
		}
		rs = append(rs, r)
	}
	var conf ctlconf.Conf
	err := catch(func() error {
		var err error
		_, conf, err = ctlconf.NewConfFromResourcesWithDefaults(rs)
		return err
	})
	if err != nil {
		return ctlconf.Conf{}, fmt.Errorf("kapp config: %w", kappconv.Readable(err))
	}
	return conf, nil
}

func hasKey(m map[string]string, k string) bool { _, ok := m[k]; return ok }

// label names pair i in errors: by the manifest's document when the caller gave it, else by its
// index.
func label(i int, p Pair) string {
	if p.Source != "" {
		return fmt.Sprintf("%s (%s)", p.Source, describe(p.Desired))
	}
	return fmt.Sprintf("pair %d (%s)", i, describe(p.Desired))
}

func describe(u *unstructured.Unstructured) string {
	if u == nil {
		return "<nil>"
	}
	name := u.GetName()
	if name == "" {
		name = "<unnamed>"
	}
	if ns := u.GetNamespace(); ns != "" {
		name = ns + "/" + name
	}
	return fmt.Sprintf("%s %s (%s)", u.GetKind(), name, u.GetAPIVersion())
}

// catch runs f and turns a panic (kapp panics on several kinds of bad input) into an error.
func catch(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("kapp panicked: %s", withoutPointers(fmt.Sprint(r)))
		}
	}()
	return f()
}

// withoutPointers is s, a panic's value as Go prints it, without the addresses of the pointers it
// shows ("(*resources.PathPartRegex)(0xc000123456)"): they differ on every run, and output must not.
func withoutPointers(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, ")(0x")
		if i < 0 {
			return b.String() + s
		}
		j := i + len(")(0x")
		for j < len(s) && strings.IndexByte("0123456789abcdef", s[j]) >= 0 {
			j++
		}
		b.WriteString(s[:i] + ")(…")
		s = s[j:]
	}
}

// joinErrors is errors.Join, capped so a systematic failure stays readable.
func joinErrors(errs []error) error {
	const maxShown = 20
	if len(errs) > maxShown {
		rest := len(errs) - maxShown
		errs = append(errs[:maxShown:maxShown], fmt.Errorf("... and %d more", rest))
	}
	return errors.Join(errs...)
}

// OriginalNull is the error of a live object whose kapp.k14s.io/original holds null, naming it
// by source (where it was read, "" not known); nil for any other. kapp's deploy reads it as no
// resource and panics (diff.ResourceWithoutHistory); an annotation kapp cannot parse it ignores,
// and diffs against the live object. check fails on it, explain (which runs no kapp) warns of it.
func OriginalNull(live *unstructured.Unstructured, source string) error {
	raw, ok := live.GetAnnotations()[kappconv.Original]
	var v any
	if !ok || json.Unmarshal([]byte(raw), &v) != nil || v != nil {
		return nil
	}
	where := "the live object"
	if source != "" {
		where = "--live " + escape.Text(source)
	}
	return fmt.Errorf("%s: metadata.annotations[%s] holds null, on which kapp v%s's deploy panics: remove the annotation from the live object (kapp writes it again on its next deploy)", where, kappconv.Original, kappconv.Kapp)
}
