package classify

import (
	"fmt"
	"regexp"
	"strings"

	utilversion "k8s.io/apimachinery/pkg/util/version"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/rulesets"
)

type compiledFilled struct {
	rulesets.Filled
	re *regexp.Regexp
}

type compiledOperational struct {
	rulesets.Operational
	re *regexp.Regexp
}

type compiledAdopted struct {
	rulesets.Adopted
	re *regexp.Regexp
}

// kappAppliers are kapp's own managers: what they wrote is not another tool's bookkeeping.
var kappAppliers = map[string]bool{"kapp": true, "kapp-controller": true}

// isKapp reports whether manager is one of kappAppliers, under any name rulesets give it.
func isKapp(rs *rulesets.Ruleset, manager string) bool {
	m, ok := rulesets.FindManager(rs.Appliers, manager)
	return ok && kappAppliers[m.Name]
}

// adoption recognises another tool's label or annotation that kapp's first deploy removes: kapp's
// built-in rebase rules reset labels and annotations to the manifest's (kapp v0.66.0
// pkg/kapp/config/default.go). Known keys (rulesets/adoption.yaml) need no managedFields; any
// other one counts when only appliers other than kapp own it.
func (c *classifier) adoption(fc fieldContext, d fielddiff.Delta, f *Finding) bool {
	if d.Change != fielddiff.Added || len(d.Path) != 3 || d.Path[0].FieldName == nil || *d.Path[0].FieldName != "metadata" ||
		d.Path[1].FieldName == nil || (*d.Path[1].FieldName != "labels" && *d.Path[1].FieldName != "annotations") {
		return false
	}
	const once = "; kapp resets labels and annotations to the manifest's, so its first deploy removes it once (kapp v0.66.0 built-in rebase rules)"
	path := d.Path.String()
	for _, a := range c.adopted {
		if a.re.MatchString(path) {
			f.Class, f.Owner = Adoption, a.Tool
			f.Evidence = fmt.Sprintf("%s bookkeeping (rulesets: %s)%s", a.Tool, a.Source, once)
			return true
		}
	}
	var by []string
	for _, o := range fc.owners {
		if !o.owns(d.Path) {
			continue
		}
		if !fc.appliers.has(o.Manager) || isKapp(c.rules, o.Manager) {
			return false
		}
		by = append(by, o.Manager)
	}
	if len(by) == 0 {
		return false
	}
	f.Class, f.Owner = Adoption, by[0]
	f.Evidence = fmt.Sprintf("managedFields: only %s, which applied the object before, owns it%s", strings.Join(by, ", "), once)
	return true
}

// filledIn recognises a field a controller fills in from knowledge alone (rulesets/filled.yaml),
// when managedFields do not decide: the object has none, or only appliers own the field.
func (c *classifier) filledIn(fc fieldContext, d fielddiff.Delta, f *Finding) bool {
	path := d.Path.String()
	for _, e := range c.filled {
		if e.Group != fc.id.Group || e.Kind != fc.id.Kind || !e.re.MatchString(path) {
			continue
		}
		evidence, ok := whenHolds(fc, e.When)
		if !ok {
			continue
		}
		why := "only appliers own it in managedFields"
		if len(fc.owners) == 0 {
			why = "the live object has no managedFields"
		}
		f.Class, f.Owner = Controller, e.Controller
		f.Evidence = fmt.Sprintf("%s; known: %s (rulesets: %s)%s", why, e.Controller, e.Source, evidence)
		if d.Change != fielddiff.Added {
			f.Warning = fmt.Sprintf("the manifest declares this field but %s rewrites it: remove it from the manifest", e.Controller)
		}
		return true
	}
	return false
}

// whenHolds checks a filled entry's evidence on the objects and names it.
func whenHolds(fc fieldContext, w rulesets.When) (string, bool) {
	if w.NoManagedFields && len(fc.owners) > 0 {
		return "", false
	}
	if w.DesiredField != "" {
		if _, ok := fc.desired.Object[w.DesiredField]; !ok {
			return "", false
		}
		return fmt.Sprintf("; evidence: the manifest declares %s", w.DesiredField), true
	}
	if len(w.Annotations) == 0 {
		return "", true
	}
	for _, k := range w.Annotations {
		for _, ann := range []map[string]string{fc.desired.GetAnnotations(), fc.live.GetAnnotations()} {
			if _, ok := ann[k]; ok {
				return fmt.Sprintf("; evidence: the object's annotation %s", k), true
			}
		}
	}
	return "", false
}

// embeddedCreationTimestamp: `creationTimestamp: null` in an ObjectMeta inside the object (a pod
// template, a CronJob's jobTemplate and its template, StatefulSet volumeClaimTemplates), stored
// by API servers whose metav1.Time marshals its zero value as null; where the manifest has no
// metadata there at all, the whole embedded metadata holding only that null.
func embeddedCreationTimestamp(d fielddiff.Delta) bool {
	n := len(d.Path)
	if d.Change != fielddiff.Added || n < 2 || d.Path[n-1].FieldName == nil {
		return false
	}
	switch *d.Path[n-1].FieldName {
	case "creationTimestamp":
		return d.Live == nil && n > 2 && d.Path[n-2].FieldName != nil && *d.Path[n-2].FieldName == "metadata"
	case "metadata":
		m, ok := d.Live.(map[string]any)
		v, has := m["creationTimestamp"]
		return ok && len(m) == 1 && has && v == nil
	}
	return false
}

// creationTimestampEvidence explains an embedded creationTimestamp: null as true of the version
// judged (version: the server's, "" for the linked version or an unknown one). metav1.Time
// marshals its zero value as null and ObjectMeta's creationTimestamp is omitzero from
// k8s.io/apimachinery v0.34: API servers and Go clients before Kubernetes v1.34 write the null,
// later servers leave it out of built-in kinds (a custom resource keeps what was stored).
func creationTimestampEvidence(version string) string {
	ev := "an embedded object's metadata.creationTimestamp: null, which API servers and Go clients before Kubernetes v1.34 write (metav1.Time marshals its zero value as null; ObjectMeta's field is omitzero from k8s.io/apimachinery v0.34)"
	v, err := utilversion.ParseSemantic(version)
	switch {
	case err != nil:
		return ev
	case v.LessThan(utilversion.MajorMinor(1, 34)):
		return ev + "; this API server (Kubernetes " + minorOf(version) + ") writes it"
	}
	return ev + "; this API server (Kubernetes " + minorOf(version) + ") leaves it out: an older server or client wrote it"
}

// operational recognises an annotation a person stamped on purpose at run time with a known tool
// (rulesets/operational.yaml), which the manifest does not declare: that tool's managedFields
// entry owns it, or the live object has no managedFields to say otherwise.
func (c *classifier) operational(fc fieldContext, d fielddiff.Delta) (Finding, bool) {
	if d.Change != fielddiff.Added {
		return Finding{}, false // a value declared in Git: the manifest's, whatever stamped it since
	}
	path := d.Path.String()
	for _, e := range c.operationalKeys {
		if !e.re.MatchString(path) {
			continue
		}
		why := ""
		if len(fc.owners) == 0 {
			why = "the live object has no managedFields"
		}
		for _, o := range fc.owners {
			if o.Manager == e.Manager && o.owns(d.Path) {
				why = "managedFields: " + o.String()
				break
			}
		}
		if why == "" {
			continue
		}
		f := Finding{Path: d.Path, Change: d.Change, Desired: d.Desired, Live: d.Live, Class: Operational, Owner: e.Manager}
		f.Evidence = fmt.Sprintf("%s; stamped on purpose at run time (rulesets: %s); ruled with the manifest's value winning (--no-operational: drift)", why, e.Source)
		return f, true
	}
	return Finding{}, false
}
