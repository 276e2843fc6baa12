package classify

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/rulesets"
)

// versionDefault is a default that differs on the API server's minor version
// (rulesets/defaults), its path matched exactly.
type versionDefault struct {
	rulesets.DefaultDifference
	re *regexp.Regexp
}

func compileVersion(v *rulesets.VersionDefaults) []versionDefault {
	if v == nil {
		return nil
	}
	out := make([]versionDefault, 0, len(v.Differences))
	for _, d := range v.Differences {
		q := strings.ReplaceAll(regexp.QuoteMeta(d.Path), `\[\*\]`, `\[[^\]]*\]`)
		out = append(out, versionDefault{d, regexp.MustCompile(`^` + q + `$`)}) // validated when loaded
	}
	return out
}

// serverDefault says whether the API server's defaulting of the desired object explains the live
// value, and how: defaultEvidence's answer (the linked version's defaulting), except where the
// defaults of the server's minor version differ from the linked version's: a live value
// that version sets is defaulted, with evidence naming that version; the linked version's default,
// which that version would not have set (or sets otherwise), is not.
func (c *classifier) serverDefault(fc fieldContext, d fielddiff.Delta) (string, bool) {
	ev, ok := defaultEvidence(fc, d)
	if len(c.versionDefaults) == 0 || fc.defaulted == nil || d.Change != fielddiff.Added {
		return ev, ok
	}
	path := d.Path.String()
	linked, has := fc.defaultedAt.Get(d.Path)
	has = has && linked != nil
	for _, v := range c.versionDefaults {
		if v.APIVersion != fc.desired.GetAPIVersion() || v.Kind != fc.desired.GetKind() || !v.re.MatchString(path) ||
			v.ReferenceNotDefaulted == has || has && !fielddiff.Equal(linked, v.ReferenceValue) {
			continue // not this field, or the linked version defaults this object otherwise than where the difference was seen
		}
		if !v.NotDefaulted && fielddiff.Equal(d.Live, v.Value) {
			return fmt.Sprintf("%s, the API server's minor version (rulesets/defaults/%s.yaml)", v.Source, minorOf(c.version)), true
		}
		return "", false
	}
	return ev, ok
}

// minorOf is v1.35 of v1.35.0.
func minorOf(v string) string {
	if i := strings.LastIndex(v, "."); i > 0 {
		return v[:i]
	}
	return v
}
