package classify

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/internal/kappconv"
	"github.com/rebasegen/rebasegen/rulesets"
)

type compiledPlugin struct {
	rulesets.Plugin
	re *regexp.Regexp
}

// sentManifest is what the applier sent: kapp's copy of the manifest it applied, else nil (the
// desired manifest stands for it). A Secret's stringData is folded into data, as the API server
// stores it and the field diff compares it: a stringData key removed in Git is a data key kapp
// sent (newcomer walkthrough 6, N6-10: it was admission's, "kapp did not send it").
func sentManifest(live load.Object) map[string]any {
	return sentIn(live, kappconv.Original)
}

// sentIn is the manifest the live object's annotation ann holds, stringData folded into data;
// nil when it holds none that reads.
func sentIn(live load.Object, ann string) map[string]any {
	raw, ok := live.GetAnnotations()[ann]
	if !ok {
		return nil
	}
	var m map[string]any
	if json.Unmarshal([]byte(raw), &m) != nil || m == nil {
		return nil
	}
	return fielddiff.FoldStringData(&unstructured.Unstructured{Object: m}).Object
}

// lastApply names the record of what the applier last sent (fieldContext.sent) in the evidence.
type lastApply struct {
	who, name, annotation string
	deploy                string // what applies the manifest next
}

var (
	kappApply = lastApply{who: "kapp", name: "kapp's last apply", annotation: kappconv.Original, deploy: "this deploy"}
	// Argo CD's client-side sync is kubectl's apply, which keeps the manifest it applied in
	// kubectl's annotation: a change made in Git since is told from one made on the cluster as
	// kapp's copy tells them apart (newcomer7 N7-5: a new env var was drift)
	argoSync = lastApply{who: "Argo CD", name: "Argo CD's last sync", annotation: lastApplied, deploy: "the next sync"}
)

// String is the record as the evidence names it: "kapp's last apply (kapp.k14s.io/original)".
func (l lastApply) String() string {
	return l.name + " (" + l.annotation + ")"
}

// argoSent is what Argo CD's last client-side sync applied, for an object argocd-controller
// applied that kapp never did; nil otherwise (a server-side sync keeps no copy).
func argoSent(live load.Object, rs *rulesets.Ruleset, applier string) map[string]any {
	if m, ok := rulesets.FindManager(rs.Appliers, applier); !ok || m.Name != "argocd-controller" {
		return nil
	}
	return sentIn(live, lastApplied)
}

// admission recognises a field added during admission of the applier's own write: a mutating
// webhook or a built-in admission plugin edits the object inside the applier's request, after the
// API server recorded the request's managed fields, so no managedFields entry owns what it added
// (kube-apiserver v1.37.2 and v1.35, measured on fixtures/admission-* and fixtures/v1.35; older servers credited the requester,
// kubernetes/kubernetes#87672). The evidence: no manager other than the applier owns the field
// (checked before this), it is absent from what the applier sent, and defaulting with the storage
// round trip (checked before this too; defaults are credited to the applier) does not produce it.
// A built-in plugin known to add the field is named with its source.
func (c *classifier) admission(fc fieldContext, d fielddiff.Delta, path string) (Finding, bool) {
	// Without managedFields (an export) there is no applier to credit, but a built-in plugin
	// known to add the field still explains it: only those are recognised then.
	exported := fc.applier == "" && len(fc.owners) == 0
	notDefaulted := "defaulting does not produce it"
	if fc.defaulted == nil && crdCannotDefault(fc.id, d.Path) {
		notDefaulted = "no CRD can default it (" + crdMetadata + ")"
	} else if fc.defaulted == nil {
		// no defaulting known for the kind (a custom resource whose CRD is not among the
		// inputs), so "defaulting does not produce it" cannot be said: unknown, naming the CRD
		return Finding{}, false
	}
	if d.Change != fielddiff.Added || fc.applier == "" && !exported {
		return Finding{}, false
	}
	sent := "the desired manifest"
	if fc.sent != nil {
		if v, ok := fc.sentAt.GetDeclared(d.Path); ok && v != nil {
			return Finding{}, false // sent, and changed since: not admission's doing
		}
		sent = fc.lastApply.annotation
	}
	credited := ownedBy(fc.owners, d.Path)
	if fc.sent == nil && len(credited) > 0 {
		// What the applier sent is unknown and managedFields credit it with the field: the
		// manifest may have declared it before and no longer does (a removal made in Git, which
		// kapp applies). Only a built-in plugin known to add the field tells admission from it.
		exported = true
	}
	if exported {
		for _, p := range c.admissionPlugins {
			if p.Group == fc.id.Group && p.Kind == fc.id.Kind && p.re.MatchString(path) {
				f := Finding{Path: d.Path, Change: d.Change, Desired: d.Desired, Live: d.Live, Class: Admission, Owner: "the " + p.Plugin.Plugin + " admission plugin"}
				missing := "the live object has no managedFields"
				if len(credited) > 0 {
					missing = "managedFields credit " + strings.Join(credited, ", ") + " for it and there is no " + kappconv.Original + " to say what it sent"
				}
				f.Evidence = fmt.Sprintf("%s; known: the %s admission plugin adds it during a create (k8s.io/kubernetes %s %s); not in %s, %s",
					missing, p.Plugin.Plugin, kappconv.Kubernetes, p.Source, sent, notDefaulted)
				return f, true
			}
		}
		return Finding{}, false
	}
	owned := "no managedFields entry owns it"
	if len(credited) > 0 {
		// only appliers can own it here: another manager's field is that manager's (field.go)
		owned = "managedFields credit " + strings.Join(credited, ", ") + " for it"
	}
	f := Finding{Path: d.Path, Change: d.Change, Desired: d.Desired, Live: d.Live, Class: Admission, Owner: "a mutating webhook or admission plugin"}
	f.Evidence = fmt.Sprintf("added during admission of %s's write (a mutating webhook or admission plugin): %s, %s did not send it (%s), %s",
		fc.applier, owned, fc.applier, sent, notDefaulted)
	for _, p := range c.admissionPlugins {
		if p.Group == fc.id.Group && p.Kind == fc.id.Kind && p.re.MatchString(path) {
			f.Owner = "the " + p.Plugin.Plugin + " admission plugin"
			f.Evidence = fmt.Sprintf("added by the %s admission plugin during %s's create (k8s.io/kubernetes %s %s): %s, %s did not send it (%s)",
				p.Plugin.Plugin, fc.applier, kappconv.Kubernetes, p.Source, owned, fc.applier, sent)
			break
		}
	}
	return f, true
}

// ownedBy names the managers whose managedFields entries own p or the whole value holding it.
func ownedBy(os []owner, p fielddiff.Path) []string {
	if q, ok := wholeValue(os, p); ok {
		p = q
	}
	var by []string
	for _, o := range os {
		if o.owns(p) && !slices.Contains(by, o.Manager) {
			by = append(by, o.Manager)
		}
	}
	return by
}

// crdMetadata is why a CustomResourceDefinition cannot default an object's metadata.
const crdMetadata = "a CRD's schema may restrict metadata to name and generateName only: k8s.io/apiextensions-apiserver pkg/apiserver/schema/validation.go validateStructuralMetadataInvariants"

// crdCannotDefault reports whether p is a custom resource's field no CRD can default, so that
// missing the CRD changes nothing there: metadata other than name and generateName.
func crdCannotDefault(id pair.Identity, p fielddiff.Path) bool {
	if id.Group == "" || len(p) < 2 || p[0].FieldName == nil || *p[0].FieldName != "metadata" || p[1].FieldName == nil {
		return false
	}
	return *p[1].FieldName != "name" && *p[1].FieldName != "generateName"
}
