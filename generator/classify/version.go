package classify

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/version"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/internal/kappconv"
	"github.com/rebasegen/rebasegen/rulesets"
)

// VersionDefaults are the defaults of the server's minor version where they differ from the
// linked version's (rulesets/defaults); nil when the server runs the linked minor version or its
// version is unknown. A minor version without data is judged with the linked version's defaults,
// and warning says so, naming both.
func VersionDefaults(sv *load.ServerVersion) (_ *rulesets.VersionDefaults, warning string, _ error) {
	linked := version.MustParseSemantic(kappconv.Kubernetes)
	if sv == nil || sameMinor(sv.Version, linked) {
		return nil, "", nil
	}
	all, err := rulesets.Versions()
	if err != nil {
		return nil, "", err
	}
	for i := range all {
		if v, err := version.ParseSemantic(all[i].Version); err == nil && sameMinor(v, sv.Version) {
			return &all[i], "", nil
		}
	}
	return nil, fmt.Sprintf("the live objects come from Kubernetes %s (%s), whose defaults rebasegen has no data for: judged with the defaults of k8s.io/kubernetes %s, which may differ", sv, sv.Source, kappconv.Kubernetes), nil
}

func sameMinor(a, b *version.Version) bool { return a.Major() == b.Major() && a.Minor() == b.Minor() }

// versionDefault is a default that differs on the API server's minor version
// (rulesets/defaults), its path matched exactly.
type versionDefault struct {
	rulesets.DefaultDifference
	re *regexp.Regexp
	// moved: a default the version's defaulting sets where the linked version's create strategy
	// sets the same value instead (on the same corpus objects, the strategy's difference beside
	// it): a value derived from the object (Pod-level requests from limits), which the linked
	// strategy computes for any object.
	moved bool
}

func compileVersion(v *rulesets.VersionDefaults) []versionDefault {
	if v == nil {
		return nil
	}
	out := make([]versionDefault, 0, len(v.Differences))
	for _, d := range v.Differences {
		q := strings.ReplaceAll(regexp.QuoteMeta(d.Path), `\[\*\]`, `\[[^\]]*\]`)
		out = append(out, versionDefault{DefaultDifference: d, re: regexp.MustCompile(`^` + q + `$`)}) // validated when loaded
	}
	for i, d := range out {
		if d.Strategy || d.NotDefaulted || !d.ReferenceNotDefaulted {
			continue
		}
		out[i].moved = slices.ContainsFunc(out, func(s versionDefault) bool {
			return s.Strategy && s.APIVersion == d.APIVersion && s.Kind == d.Kind && s.Path == d.Path && s.NotDefaulted && !s.ReferenceNotDefaulted &&
				fielddiff.Equal(s.ReferenceValue, d.Value) && slices.ContainsFunc(s.Objects, func(o string) bool { return slices.Contains(d.Objects, o) })
		})
	}
	return out
}

// serverDefault says whether the API server's defaulting of the desired object, then its create
// strategy's PrepareForCreate, explains the live value, and how: defaultEvidence's answer (the
// linked version's code), except where the server's minor version differs from the linked
// version's in what either sets there: a live value that version's defaulting or strategy sets is
// defaulted, with evidence naming that version; the linked version's value, which that version
// would not have set (or sets otherwise), is not. A map the manifest lacks (Pod-level requests) is
// judged leaf by leaf, as the data names fields: defaulted when every leaf is.
func (c *classifier) serverDefault(fc fieldContext, d fielddiff.Delta) (string, bool) {
	ev, ok := defaultEvidence(fc, d)
	if len(c.versionDefaults) == 0 || fc.defaulted == nil || d.Change != fielddiff.Added {
		return ev, ok
	}
	var sources []string
	matched, explained := false, true
	forLeaves(d.Path, d.Live, func(p fielddiff.Path, live any) {
		source, m, ok := c.leafDefault(fc, p, live)
		matched = matched || m
		explained = explained && ok
		if ok && !slices.Contains(sources, source) {
			sources = append(sources, source)
		}
	})
	switch {
	case !matched:
		return ev, ok
	case !explained:
		return "", false
	}
	return strings.Join(sources, "; "), true
}

// forLeaves calls f with each leaf of v under p: v itself unless it is a non-empty map.
func forLeaves(p fielddiff.Path, v any, f func(fielddiff.Path, any)) {
	m, ok := v.(map[string]any)
	if !ok || len(m) == 0 {
		f(p, v)
		return
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		q := append(slices.Clip(p), fieldpath.PathElement{FieldName: &k})
		forLeaves(fielddiff.Path(q), m[k], f)
	}
}

// leafDefault judges one field with the server's minor version: matched when the version's data
// holds a difference that applies there, ok when the version's defaulting or strategy sets live.
func (c *classifier) leafDefault(fc fieldContext, p fielddiff.Path, live any) (source string, matched, ok bool) {
	// what the linked version's defaulting sets there, and what its strategy then sets or changes
	scheme := stageValue{source: fc.mechanism}
	scheme.value, scheme.set = fc.defaultedAt.Get(p)
	scheme.set = scheme.set && scheme.value != nil
	prepared := stageValue{source: "set on create by " + fc.strategy}
	if pa := fc.prepared.lookup(); pa != nil {
		prepared.value, prepared.set = pa.Get(p)
		prepared.set = prepared.set && prepared.value != nil && !(scheme.set && fielddiff.Equal(prepared.value, scheme.value))
	}
	linkedPrepared := prepared
	for _, stage := range []*stageValue{&scheme, &prepared} {
		if v, ok := c.versionDifference(fc, p, live, stage == &prepared, *stage, linkedPrepared); ok {
			*stage, matched = v, true
		}
	}
	switch {
	case scheme.set && fielddiff.Equal(scheme.value, live):
		return scheme.source, matched, true
	case prepared.set && fielddiff.Equal(prepared.value, live):
		return prepared.source, matched, true
	}
	return "", matched, false
}

// stageValue is what one stage of the server's create (defaulting, the create strategy) sets at a
// field, and the evidence naming that stage.
type stageValue struct {
	value  any
	set    bool
	source string
}

// versionDifference is the server's minor version's value at the field for one stage, when its
// data (rulesets/defaults) holds a difference there that applies: the linked version sets the
// field there as it did where the difference was seen (any value where the version sets none).
// A value the version sets is the corpus object's, or for a moved default what the linked
// strategy sets on this object; of several differences that apply, one whose value is the live
// value wins (a default derived from the object has one per corpus object).
func (c *classifier) versionDifference(fc fieldContext, p fielddiff.Path, live any, strategy bool, linked, linkedPrepared stageValue) (stageValue, bool) {
	path := p.String()
	var found []stageValue
	for _, v := range c.versionDefaults {
		if v.Strategy != strategy || v.APIVersion != fc.desired.GetAPIVersion() || v.Kind != fc.desired.GetKind() || !v.re.MatchString(path) ||
			v.ReferenceNotDefaulted == linked.set || linked.set && !v.NotDefaulted && !fielddiff.Equal(linked.value, v.ReferenceValue) {
			continue // not this field, or the linked version sets it otherwise than where the difference was seen
		}
		source := fmt.Sprintf("%s, the API server's minor version (rulesets/defaults/%s.yaml)", v.Source, minorOf(c.version))
		if strategy {
			source = "set on create by " + source
		}
		sv := stageValue{value: v.Value, set: !v.NotDefaulted, source: source}
		if v.moved {
			sv.value, sv.set = linkedPrepared.value, linkedPrepared.set
		}
		if sv.set && fielddiff.Equal(sv.value, live) {
			return sv, true
		}
		found = append(found, sv)
	}
	if len(found) == 0 {
		return stageValue{}, false
	}
	return found[0], true
}

// minorOf is v1.35 of v1.35.0.
func minorOf(v string) string {
	if i := strings.LastIndex(v, "."); i > 0 {
		return v[:i]
	}
	return v
}
