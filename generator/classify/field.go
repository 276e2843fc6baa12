package classify

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/internal/kappconv"
	"github.com/rebasegen/rebasegen/rulesets"
)

// field classifies one differing field. Order matters: another tool's bookkeeping kapp drops
// once is adoption; an owner in managedFields that is not an applier is the strongest evidence
// (a person's tool only when the server's defaulting does not produce the value); then the
// server's own defaulting, then knowledge from the rulesets. A field only appliers own is never
// a controller's: a differing declared value there is a change made in Git.
func (c *classifier) field(fc fieldContext, d fielddiff.Delta) Finding {
	f := Finding{Path: d.Path, Change: d.Change, Desired: d.Desired, Live: d.Live, Inserted: d.Inserted}
	declared := d.Change != fielddiff.Added
	path := d.Path.String()
	if path == "apiVersion" {
		return c.apiVersion(fc, d) // another version of the kind's group: nothing else explains it
	}
	if ok := c.adoption(fc, d, &f); ok {
		return f
	}
	if o, ok := c.operational(fc, d); ok {
		return o
	}
	if d.Change == fielddiff.Removed && fc.stored.unknown(d.Path, d.Desired) {
		f.Class, f.Pruned = Unknown, true
		f.Evidence = fmt.Sprintf("the API server does not know this field: %s %s has none such, and the server dropped it when it stored the object (kubectl apply --validate=strict refuses it); kapp sends it on every deploy, and it does nothing", fc.desired.GetAPIVersion(), fc.desired.GetKind())
		f.Warning = "the API server does not know this field and drops it: fix or remove it in the manifest"
		return f
	}
	if d.Change == fielddiff.Removed && fc.prunedAt != nil {
		if _, kept := fc.prunedAt.Get(d.Path); !kept {
			f.Class, f.Pruned = Unknown, true
			f.Evidence = fmt.Sprintf("the API server does not know this field: the structural schema of CRD %s has none such (nor x-kubernetes-preserve-unknown-fields above it), and the server pruned it when it stored the object; kapp sends it on every deploy, and it does nothing", fc.crd)
			f.Warning = "the API server does not know this field and drops it: fix or remove it in the manifest"
			return f
		}
	}
	defaulted, byDefault := c.serverDefault(fc, d)
	fromGit := changedInGit(fc, d) || c.insertedInGit(fc, d)
	owned, whole := d.Path, false // the field, or the atomic list or whole value holding it
	if q, ok := wholeValue(fc.owners, d.Path); ok {
		owned, whole = q, true
	}
	if others := otherOwners(fc.owners, fc.appliers, owned); len(others) > 0 && d.Change != fielddiff.Removed {
		// A person's change is never ruled away, whichever entry comes first or is newest, unless
		// the server's defaulting produces the value (kubectl apply by hand, an Update, records
		// every field it sent or the server defaulted as its own).
		var controller, scaled, unlisted *owner
		for _, o := range others {
			h, isHuman := rulesets.FindWrite(c.rules.Humans, o.Manager, o.Operation, o.Subresource)
			if isHuman && !byDefault && !fromGit {
				f.Class, f.Owner = Drift, o.Manager
				f.Evidence = fmt.Sprintf("managedFields: %s changed it (%s); a tool people use by hand: %s", o.Manager, o, h.Source)
				if hpa, ok := c.hpaTargets[fc.id]; ok && path == "spec.replicas" {
					// the autoscaler scales it again: still its field, whoever scaled last
					f.Autoscaler = hpa
					f.Evidence += fmt.Sprintf("; HorizontalPodAutoscaler %s targets this %s and sets spec.replicas again on its next scale: the rules copy it as the autoscaler's", hpa, fc.id.Kind)
					return f
				}
				redefaults(fc, d, &f)
				return f
			}
			w, known := rulesets.FindWrite(c.rules.Controllers, o.Manager, o.Operation, o.Subresource)
			if !known && !isHuman && d.Change == fielddiff.Modified && o.Subresource == "" {
				// One write of a value the manifest declares, by a manager no ruleset knows, is no
				// evidence of a controller: a person's script or UI writes so too (newcomer3
				// finding 1). Writing a subresource, or a field the manifest leaves out, is what
				// controllers do and the people's tools the rulesets list do not.
				if unlisted == nil {
					unlisted = &o
				}
				continue
			}
			if known && w.Autoscaler && !c.autoscaled(fc.id) {
				// managedFields keep the entry of the HPA controller's scale long after the
				// autoscaler is gone: nothing writes the value again, and kapp's deploy puts the
				// manifest's back. (Another manager scaling through the subresource is a controller
				// of its own, whatever autoscalers exist.)
				if scaled == nil {
					scaled = &o
				}
				continue
			}
			if !isHuman && controller == nil {
				controller = &o
			}
		}
		if o := controller; o != nil && declared && changedSinceApplied(fc, d) {
			// The owner's exemption holds for the value kapp applied, whatever the owner made
			// of it since; a new value from Git is a change this deploy applies, never the
			// controller's to keep (probe7 D4: a rule handing the field to it would hide the
			// change). Not ruled.
			f.Owner, f.Class = o.Manager, Pending
			f.Evidence = fmt.Sprintf("a change made in Git: the manifest now declares another value than %s; %s owns the field (managedFields: %s), which exempts only the value %s applied; %s applies the manifest's", fc.lastApply, o.Manager, o, fc.lastApply.who, fc.lastApply.deploy)
			f.Warning = fmt.Sprintf("the manifest declares this field but %s rewrites it: remove it from the manifest", o.Manager)
			return f
		}
		if o := controller; o != nil {
			f.Owner, f.Class = o.Manager, Controller
			f.Evidence = "managedFields: " + o.String()
			if whole {
				f.Whole = owned
				f.Evidence += " (of the whole value " + owned.String() + ")"
			}
			if declared {
				f.Warning = fmt.Sprintf("the manifest declares this field but %s rewrites it: remove it from the manifest", o.Manager)
			}
			return f
		}
		if o := scaled; o != nil && !byDefault && !fromGit {
			f.Class, f.Owner = Drift, o.Manager
			f.Evidence = fmt.Sprintf("managedFields: %s, but no autoscaler among the desired, live or deleted objects (a HorizontalPodAutoscaler, a KEDA ScaledObject) targets this %s: the scale a removed autoscaler left, or one made by hand, which nothing writes again and kapp's deploy reverts", o, fc.id.Kind)
			redefaults(fc, d, &f)
			return f
		}
		if o := unlisted; o != nil && !byDefault && !fromGit {
			f.Class = Unknown
			f.Evidence = fmt.Sprintf("managedFields: %s changed it (%s), a manager on no list of the rulesets (rulesets/managers.yaml, --ruleset): one write of a declared value may be a controller's or a person's (a script, a UI), which rebasegen cannot tell", o.Manager, o)
			f.Warning = fmt.Sprintf("%s, a field manager rebasegen does not know, changed this declared value: name it in a --ruleset, under controllers (its value is then ruled) or humans (drift)", o.Manager)
			return f
		}
	}
	if embeddedCreationTimestamp(d) {
		f.Class = Calculated
		f.Evidence = creationTimestampEvidence(c.version)
		return f
	}
	if d.Change == fielddiff.Canonical {
		f.Class = Defaulted
		f.Evidence = "same value in the API server's canonical form (resource.Quantity / typed round trip); kapp compares text"
		return f
	}
	if byDefault {
		f.Class, f.Evidence = Defaulted, defaulted
		return f
	}
	if fromGit {
		// kapp sent the live value itself: the cluster did not change, Git did (the rulesets'
		// knowledge of server-set fields is about values kapp did not send)
		f.Class = Pending
		f.Evidence = "a change made in Git: the live value is what " + fc.lastApply.who + " last applied (" + fc.lastApply.annotation + "); the manifest now declares another, which " + fc.lastApply.deploy + " applies"
		if in := d.Inserted; in != nil {
			f.Evidence = fmt.Sprintf("a change made in Git: the manifest inserts %s at index %d of this list, before the items %s last applied (%s), which the live list holds as the API server defaulted them; %s applies the manifest's list", insertedItems(in.Items), in.At, fc.lastApply.who, fc.lastApply.annotation, fc.lastApply.deploy)
		}
		if d.Change == fielddiff.Removed {
			f.Evidence = "a change made in Git: " + fc.lastApply.String() + " did not hold this field, nor does the live object; the manifest now declares it, which " + fc.lastApply.deploy + " applies"
		}
		if why, blocks, ok := c.immutableChange(fc, path); ok {
			f.Blocks, f.Evidence = blocks, f.Evidence+why
		}
		return f
	}
	if d.Change != fielddiff.Removed {
		calculated := func(cf compiledField) bool {
			return (cf.Kind == "*" || cf.Group == fc.id.Group && cf.Kind == fc.id.Kind) && cf.re.MatchString(path)
		}
		// an empty value ("", 0) asks the server to choose, as leaving the field out does
		if newlyDeclared(fc, d) && !emptyValue(d.Desired) && slices.ContainsFunc(c.calculated, calculated) {
			// The server set it because kapp's last apply left it out; the manifest now declares
			// another value: a change made in Git, which this deploy sends (newcomer walkthrough
			// 4, item 10: it was calculated, and ruled)
			f.Class = Pending
			f.Evidence = "a change made in Git: " + fc.lastApply.String() + " did not hold this field, which the API server then set; the manifest now declares another value, which " + fc.lastApply.deploy + " applies"
			if why, blocks, ok := c.immutableChange(fc, path); ok {
				f.Blocks, f.Evidence = blocks, f.Evidence+why
			}
			return f
		}
		if why, kept := headlessKept(fc, path, d); kept {
			// kapp's last apply declared the live value, so the allocator did not make it: Git
			// removed it, and the server keeps it (newcomer7 N7-15)
			f.Class = Pending
			f.Evidence = "a change made in Git: kapp's last apply (" + kappconv.Original + ") declared None, the live value; the manifest no longer declares it" + why
			f.Warning = "removed in Git, but the Service keeps " + path + " None (" + keptRemedy + ")"
			f.ServerKeeps = true
			return f
		}
		for _, cf := range c.calculated {
			if calculated(cf) {
				f.Class = Calculated
				f.Evidence = "set by the API server: " + cf.Source
				return f
			}
		}
	}
	if hpa, ok := c.hpaTargets[fc.id]; ok && path == "spec.replicas" {
		autoscaledReplicas(&f, fc.id, hpa, declared)
		return f
	}
	if d.Change != fielddiff.Removed && c.filledIn(fc, d, &f) {
		return f
	}
	if d.Change == fielddiff.Added {
		for _, in := range c.injected {
			if in.re.MatchString(path) {
				f.Class, f.Owner = Controller, in.Controller
				f.Evidence = fmt.Sprintf("injected by %s, a webhook managedFields cannot show (rulesets: %s)", in.Controller, in.Source)
				return f
			}
		}
	}
	if d.Change == fielddiff.Added && c.defaultedForSent(fc, d) {
		// the server defaulted it for kapp's last apply and does not for the manifest (a
		// strategy's rollingUpdate once Git switches the type to Recreate: this deploy's update
		// removes it, as the server would refuse a copy of it, newcomer7 N7-1), or defaults it
		// otherwise (imagePullPolicy once Git pins a latest image's tag, newcomer9 N9-4)
		f.Class = Pending
		f.Evidence = "a change made in Git: the live value is what the API server's defaulting made of " + fc.lastApply.String() + ", and its defaulting of the manifest does not produce it (" + fc.mechanism + "): " + fc.lastApply.deploy + "'s update removes it"
		if _, ok := fc.defaultedAt.Get(d.Path); ok {
			f.Evidence = "a change made in Git: the live value is what the API server's defaulting made of " + fc.lastApply.String() + ", and its defaulting of the manifest gives another (" + fc.mechanism + "): " + fc.lastApply.deploy + "'s update changes it"
		}
		return f
	}
	if why, ok := switchedAway(fc, d); ok {
		// kapp's last apply named the handler the server then defaulted (or a rule copied): the
		// live value is no admission's, and a copy of it would be refused (probe13 P13-1)
		f.Class, f.Evidence = Pending, "a change made in Git: "+why
		return f
	}
	if f, ok := crdDefaultChanged(fc, d); ok {
		// the default of the CRD the cluster has, which the manifests change: no admission's
		return f
	}
	if f, ok := crdDefaultKept(fc, d); ok {
		// the default of an earlier version of the CRD, kept since that deploy: no admission's
		return f
	}
	if a, ok := c.admission(fc, d, path); ok {
		return a
	}
	if declared && newlyDeclared(fc, d) {
		f.Class = Pending
		f.Evidence = "a change made in Git: " + fc.lastApply.String() + " did not hold this field, so the live value is what the API server made of that apply (no manager but the applier owns it); the manifest now declares another, which " + fc.lastApply.deploy + " applies"
		// the server refuses a change of an immutable field whatever kapp's last apply held
		// (newcomer7 N7-3: a StorageClass's defaulted reclaimPolicy declared otherwise)
		if why, blocks, ok := c.immutableChange(fc, path); ok {
			f.Blocks, f.Evidence = blocks, f.Evidence+why
		}
		return f
	}
	if declared {
		f.Class = Drift
		f.Evidence = declaredDrift(fc, d)
		if fc.sent == nil {
			f.Evidence += "; no " + kappconv.Original + " (a first deploy, or an object kapp takes over): a change made in Git cannot be told from one made on the cluster"
		}
		// whoever made the difference, the deploy sends the manifest's value over the live one,
		// which the server refuses where this field is immutable (an object kapp takes over that
		// was created with another selector). A refusal of the whole update for another field's
		// sake (kapp's label scoping on a selector) is that field's finding, not this drift's:
		// an applier without kapp's labels (Argo CD) sends this value and is accepted.
		if c.frozenAt(fc, path) {
			if why, blocks, ok := c.immutableChange(fc, path); ok {
				f.Blocks, f.Evidence = blocks, f.Evidence+why
			}
		}
		return f
	}
	if removedInGit(fc, d) {
		// Nothing above explains the live value as the server's or a controller's, and kapp's
		// last apply held it: the manifest declared it then and no longer does. kapp (its
		// built-in rules alone) removes it on this deploy.
		f.Class = Pending
		f.Evidence = "a change made in Git: " + fc.lastApply.String() + " held this field; the manifest no longer declares it, and " + removes(fc, d)
		f.DefaultedTo, _ = defaultedAgain(fc, d.Path)
		// judged immutable only for a whole immutable field: kapp's own labels in a pod template
		// the manifest leaves without metadata land here too (newcomer24 finding 2), which kapp
		// does not remove; and a part of a field immutable while the live object says so (a key
		// removed from an immutable ConfigMap's data); and any part of a kind whose update the
		// server's own validation judges here, or whose create it judges where kapp replaces it
		if c.immutableField(fc.id, path) || c.frozenWhole(fc.id, path) || c.updateValidated(fc.id) || c.replaced(fc) {
			if why, blocks, ok := c.immutableChange(fc, path); ok {
				f.Blocks, f.Evidence = blocks, f.Evidence+why
			}
		}
		return f
	}
	f.Class = Unknown
	mechanism := orNone(fc.mechanism)
	if fc.defaulted == nil && crdCannotDefault(fc.id, d.Path) {
		mechanism = "no CRD can default it (" + crdMetadata + ")" // the CRD would change nothing here
	}
	f.Evidence = fmt.Sprintf("checked: managedFields (%s), %s, calculated-field, filled-field and injection rulesets, HorizontalPodAutoscaler targets", ownerNames(fc.owners), mechanism)
	if fc.sent == nil && d.Change == fielddiff.Added && len(ownedBy(fc.owners, d.Path)) > 0 {
		f.AppliedBefore = true
		f.Evidence += "; managedFields credit the applier with it and there is no " + kappconv.Original + " (a first deploy, kapp.k14s.io/disable-original): a field the manifest no longer declares cannot be told from one added during admission"
	}
	return f
}

// RegenerateAfterDeploy is what to do with generated rules the deployed objects need regenerated,
// which rules regenerated from live objects captured before the deploy are not.
const RegenerateAfterDeploy = "regenerate them after the deploy, from a new capture"

// redefaults says, of f, a person's change to a field the manifest leaves to the API server's
// defaulting, that kapp's deploy reverts it to the default, which rules generated with the drift
// in the live objects do not copy: a ghost diff once deployed (newcomer16 N16-7). Where the
// rules in force copy the live value instead, kapp keeps the drift, and the verdict takes the
// words back (Finding.Redefaults).
func redefaults(fc fieldContext, d fielddiff.Delta, f *Finding) {
	v, ok := defaultedAgain(fc, d.Path)
	if d.Change != fielddiff.Added || !ok {
		return
	}
	f.Redefaults = fmt.Sprintf("; the manifest leaves this field to the API server, which defaults it to %s (%s): kapp's deploy reverts the drift to that default, which rules generated from live objects holding the drift do not copy (a ghost diff after the deploy): %s", quoted(v), fc.mechanism, RegenerateAfterDeploy)
	f.Evidence += f.Redefaults
}

// declaredDrift explains a declared value that differs with nothing but appliers owning it.
func declaredDrift(fc fieldContext, d fielddiff.Delta) string {
	var by []string
	for _, o := range fc.owners {
		if fc.appliers.has(o.Manager) && o.owns(d.Path) {
			by = append(by, o.Manager)
		}
	}
	if len(by) > 0 {
		role := "which applied the manifest"
		if fc.appliers.main != "" && by[0] != fc.appliers.main {
			role = "which applied the manifest before " + fc.appliers.main // the header names main
		}
		return fmt.Sprintf("differs from the value the manifest declares; owned by %s, %s (%s): a change made in Git or by hand, not a controller's", strings.Join(by, ", "), role, fc.appliers.evidence[by[0]])
	}
	return fmt.Sprintf("differs from the value the manifest declares; no manager other than the applier (%s) owns it and no default, calculation or controller explains it", orNone(fc.appliers.main))
}

func orNone(s string) string {
	if s == "" {
		return "none recognised"
	}
	return s
}

func ownerNames(os []owner) string {
	if len(os) == 0 {
		return "no entries"
	}
	var names []string
	for _, o := range os {
		names = append(names, o.Manager)
	}
	return "managers " + strings.Join(names, ", ")
}
