package classify

import (
	"fmt"
	"reflect"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// changedCRDs are the CRD versions among the inputs (the cluster's, where the live objects hold
// the CRD) whose schema the CRD the manifests declare replaces with another (appliedCRDs): a
// custom resource of theirs may hold a default the cluster's CRD gave it and the manifests' CRD
// no longer gives (crdDefaultChanged).
func changedCRDs(inputs, applied crdSchemas) crdSchemas {
	out := crdSchemas{}
	for gvk, s := range inputs {
		if a := applied.lookup(gvk); a != nil && a.desired && !reflect.DeepEqual(a.structural, s.structural) {
			out[gvk] = s
		}
	}
	return out
}

// crdDefaultChanged recognises a field of a custom resource that neither the manifest nor kapp's
// last apply declares, whose live value is the default of its CRD as the cluster has it while
// the CRD the manifests declare, which kapp applies before the custom resources (appliedCRDs),
// defaults it otherwise or not at all: the CRD's default changed in Git. The API server defaults a
// field only where the object it decodes lacks it (k8s.io/apiextensions-apiserver structural
// defaulting of a request, and of an object read from etcd, which holds the old default): an
// update omitting the field, as kapp's does, gets the new default (commit 125f629 measured it);
// the object keeps the old one until such an update. Pending until crdDefaultsSettled judges
// whether this deploy updates the object; DefaultedTo is the new default.
func crdDefaultChanged(fc fieldContext, d fielddiff.Delta) (Finding, bool) {
	if fc.liveCRDAt == nil || d.Change != fielddiff.Added {
		return Finding{}, false
	}
	if fc.sentAt != nil {
		if _, sent := fc.sentAt.GetDeclared(d.Path); sent {
			return Finding{}, false // a removal made in Git (removedInGit)
		}
	}
	if v, ok := fc.liveCRDAt.Get(d.Path); !ok || !fielddiff.Equal(v, d.Live) {
		return Finding{}, false
	}
	f := Finding{Path: d.Path, Change: d.Change, Desired: d.Desired, Live: d.Live, Class: Pending, CRDDefault: fc.liveCRD}
	f.DefaultedTo, _ = defaultedAgain(fc, d.Path)
	return f, true
}

// crdDefaultKept recognises such a field after the deploy that applied the CRD's new default: the
// CRD the custom resource is judged with defaults the field to another value than the live
// object holds, no manager but the applier owns it (another's is that manager's, field.go) and
// kapp's last apply did not hold it. The live value is the default of an earlier version of the CRD: the server
// defaulted it when it last decoded the object without the field, and kapp has sent no update
// since (an unchanged object is not updated), so the object keeps it until an update omits the
// field. Pending until crdDefaultsSettled judges whether this deploy updates the object;
// DefaultedTo is the CRD's default now.
func crdDefaultKept(fc fieldContext, d fielddiff.Delta) (Finding, bool) {
	if fc.crd == "" || fc.liveCRDAt != nil || d.Change != fielddiff.Added {
		return Finding{}, false
	}
	if fc.sentAt != nil {
		if _, sent := fc.sentAt.GetDeclared(d.Path); sent {
			return Finding{}, false // a removal made in Git (removedInGit)
		}
	}
	now, ok := fc.defaultedAt.Get(d.Path)
	if !ok || fielddiff.Equal(now, d.Live) {
		return Finding{}, false
	}
	return Finding{Path: d.Path, Change: d.Change, Desired: d.Desired, Live: d.Live, Class: Pending, CRDDefault: fc.crd, CRDEarlier: true, DefaultedTo: now}, true
}

// crdDefaultsSettled gives the fields crdDefaultChanged found among one resource's findings (fs)
// their class and evidence: where this deploy updates the object, kapp's update omits the field
// and the server gives it the new default, a change made in Git that a rule copying the live
// value hides (Pending); where it does not, the object keeps the old default (Defaulted). kapp
// updates an object only where its diff shows a change (kapp v0.66.0 pkg/kapp/diff/change.go):
// under rules removing the ghost diffs, where another finding is not one (a change made in Git,
// a drift it reverts). Argo CD's sync patches only the fields its manifest changes.
func crdDefaultsSettled(fc fieldContext, fs []Finding) {
	var found []int
	cause := ""
	for i, f := range fs {
		switch {
		case f.CRDDefault != "":
			found = append(found, i)
		case cause == "" && !f.Class.Ghost() && !f.Covered():
			cause = f.Path.String()
		}
	}
	if len(found) == 0 {
		return
	}
	mechanism := "structural-schema defaulting, k8s.io/apiextensions-apiserver " + kappconv.Kubernetes
	sent := "the desired manifest"
	if fc.sent != nil {
		sent = fc.lastApply.annotation
	}
	for _, i := range found {
		f := &fs[i]
		now := "no longer defaults it"
		if f.DefaultedTo != nil {
			now = "defaults it to " + quoted(f.DefaultedTo)
		}
		was := fmt.Sprintf("the live value, %s, is the default of CRD %s as the cluster has it; the manifests change that CRD, which %s applies before the custom resources, and it %s (%s)",
			quoted(f.Live), f.CRDDefault, fc.lastApply.who, now, mechanism)
		if f.CRDEarlier {
			was = fmt.Sprintf("the live value, %s, is a default of an earlier version of CRD %s, which now %s (%s): %s did not send it (%s), and the server defaulted it when the object was last written without it",
				quoted(f.Live), f.CRDDefault, now, mechanism, fc.applier, sent)
		}
		if fc.lastApply == kappApply && cause != "" {
			f.Evidence = fmt.Sprintf("a change made in Git, the CRD's default: %s; this deploy updates the object (%s), kapp's update omits the field, and the server defaults it anew: a rule copying the live value would keep the old default", was, cause)
			continue
		}
		why := "nothing else of the object changes, so this deploy does not update it (kapp updates an object only where its diff shows a change)"
		if fc.lastApply != kappApply {
			why = fc.lastApply.who + "'s sync patches only the fields the manifest changes"
		}
		f.Class, f.DefaultedTo = Defaulted, nil
		f.Evidence = fmt.Sprintf("%s; the server defaults a field only where the object it is sent lacks it, and %s: the object keeps the old default until an update omits the field", was, why)
	}
}
