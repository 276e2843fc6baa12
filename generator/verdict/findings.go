package verdict

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/internal/kappconv"
	"github.com/rebasegen/rebasegen/internal/words"
)

// Kind is one kind of finding check reports. Kinds lists them all, Label names each: every output
// format renders each of them under its label (a test ranges over Kinds), so a kind added here
// without a label or a renderer fails it.
type Kind string

const (
	KindResidual      Kind = "residual"       // a ghost diff the rules leave
	KindUnknown       Kind = "unknown"        // kapp updates a resource for a field nothing explains
	KindHidden        Kind = "hidden"         // a rule hides a change made in Git to a declared field
	KindPendingCreate Kind = "pending-create" // a desired object with no live counterpart: kapp creates it
	KindPendingDelete Kind = "pending-delete" // a live object of the app that is no longer desired: kapp deletes it
	KindStale         Kind = "stale"          // a generated rule file that would change
	KindDrift         Kind = "drift"          // a person changed the live object
	KindPending       Kind = "pending"        // a change made in Git that kapp applies on deploy
	KindAdoption      Kind = "adoption"       // kapp changes the object once, taking it over
	// KindServerVersion: the live objects come from a Kubernetes minor version whose defaults
	// rebasegen has no data for, so every default was judged with the linked version's.
	KindServerVersion Kind = "server-version"
	// KindImmutable: a change made in Git with which the API server refuses the object kapp's
	// deploy sends (a field it refuses to change, an invalid update, a value a rebase rule copies
	// beside the change), so the deploy fails on it.
	KindImmutable Kind = "immutable"
	// KindUnjudged: a Secret whose values rebasegen capture redacted: they were taken as the
	// manifest's and never compared, so the resource is not counted as kept.
	KindUnjudged Kind = "unjudged"
	// KindOwnership: a live object labelled as another kapp app's, on which kapp's deploy fails
	// before applying anything (Ownership).
	KindOwnership Kind = "ownership"
	// KindDeployFails: kapp's deploy fails on the change groups, change rules, update strategy or
	// wait rule of this deploy's changes, or its Configs' preflight rules (DeployFails).
	KindDeployFails Kind = "deploy-fails"
	// KindUnserved: a manifest's apiVersion at which the API server does not serve its kind
	// (classify.Finding.Unserved): kapp's deploy fails before applying anything.
	KindUnserved Kind = "unserved"
	// KindRuleUnjudged: a hand-written ytt rule deciding on a value the mutation check does not
	// vary, whose verdict would be luck (RuleUnjudged).
	KindRuleUnjudged Kind = "rule-unjudged"
)

// Kinds returns every kind of finding, in report order; a fresh slice on every call.
func Kinds() []Kind {
	return []Kind{KindServerVersion, KindOwnership, KindDeployFails, KindUnserved, KindResidual, KindPendingCreate, KindPendingDelete, KindUnknown, KindHidden, KindImmutable, KindStale, KindDrift, KindPending, KindAdoption, KindUnjudged, KindRuleUnjudged}
}

// Label names the kind in front of each finding of it, in every output format that writes
// sentences (text, github); "" for a kind not in Kinds.
func (k Kind) Label() string {
	switch k {
	case KindResidual:
		return "residual ghost diff"
	case KindPendingCreate:
		return "pending create, not compared"
	case KindPendingDelete:
		return "pending delete"
	case KindUnknown:
		return "unknown"
	case KindHidden:
		return "hidden"
	case KindImmutable:
		return "pending change from Git that kapp's deploy fails on (refused by the API server's validation)"
	case KindStale:
		return "stale"
	case KindDrift:
		return "drift"
	case KindPending:
		return "pending change from Git (kapp applies it on deploy)"
	case KindAdoption:
		return "adoption (kapp changes it once, when it takes the object over)"
	case KindServerVersion:
		return "server version"
	case KindUnjudged:
		return "not judged (Secret values redacted at capture)"
	case KindOwnership:
		return "another app's object (kapp's deploy fails before applying anything)"
	case KindDeployFails:
		return "kapp's deploy fails"
	case KindRuleUnjudged:
		return "rule not judged"
	case KindUnserved:
		return "apiVersion the API server does not serve (kapp's deploy fails on it)"
	}
	return ""
}

// Finding is one finding of check, whatever its kind, as every output format renders it.
type Finding struct {
	Kind     Kind
	Resource pair.Identity // zero for a stale file
	Path     string        // the field; empty when kapp's engine reports the resource as a whole
	Class    string        // the field's class label, when it has one
	Evidence string
	// Stale files: the file, its first differing line and the unified diff. Hidden changes: the
	// file and line of the rule hiding it ("" when the rules in force together hide it). Drift,
	// pending changes and creates: where they were made (generator.Checked.Findings; "" when not
	// known).
	File string
	Line int
	Diff string
	// Fails: the finding fails the gate (exit 3); else it is a warning.
	Fails bool
	// Inputs: a stale file's, the inputs its Regenerate line records that this check did not give
	// and those it gave that the line does not record (Stale.Inputs).
	Inputs []string
	// InPlace: a stale file's command regenerating it in place when its Regenerate line writes to
	// stdout (Stale.InPlace).
	InPlace string
	// Values: a field changed both in Git and on the cluster (its drift and its pending change):
	// the three values; nil for any other finding.
	Values *ThreeWay
	// ServedUnknown: a drift finding of a manifest's apiVersion whose serving cannot be judged
	// (classify.Finding.ServedUnknown): the summary counts it apart, as kapp's deploy may fail.
	ServedUnknown bool
}

// ThreeWay is a field changed both in Git and on the cluster (classify.GitChange): what the
// applier last applied, what the manifest declares and what the live object holds there (a
// Secret's masked); nil where that one holds no value.
type ThreeWay struct {
	Original, Desired, Live *any
}

// threeWay is f's three values; nil when Git did not change its field beside a drift.
func threeWay(f classify.Finding) *ThreeWay {
	if f.GitToo == nil {
		return nil
	}
	at := func(v any) *any { return &v }
	w := &ThreeWay{}
	if f.GitToo.Held {
		w.Original = at(f.GitToo.Original)
	}
	if f.Change != fielddiff.Added {
		w.Desired = at(f.Desired)
	}
	if f.Change != fielddiff.Removed {
		w.Live = at(f.Live)
	}
	return w
}

// Gate says which findings fail the gate besides those that always do.
type Gate struct {
	FailOnDrift    bool
	FailOnAdoption bool
	// FailOnCreate and FailOnDelete: pending creates and deletes, changes made in Git that kapp's
	// deploy applies, fail the gate (for a human to look: a values change renaming every object).
	// A pending create whose object is live in another namespace fails whatever they say.
	FailOnCreate bool
	FailOnDelete bool
}

// Findings lists everything check found, kind by kind in the order of Kinds, each marked with
// whether it fails the gate. Lint findings are reported on their own (lint's formats).
func (c *Verdict) Findings(g Gate) []Finding {
	var out []Finding
	field := func(k Kind, rs []Residual, fails bool) {
		for _, r := range rs {
			f := Finding{Kind: k, Resource: r.Resource, Evidence: r.Finding.Evidence, Fails: fails, Values: threeWay(r.Finding)}
			if r.Finding.Path != nil {
				f.Path, f.Class = r.Finding.Path.String(), r.Finding.Label()
			}
			out = append(out, f)
		}
	}
	for _, o := range c.Ownership {
		out = append(out, Finding{Kind: KindOwnership, Resource: o.Resource, Fails: true, Evidence: o.Evidence()})
	}
	for _, d := range c.DeployFails {
		out = append(out, Finding{Kind: KindDeployFails, Resource: d.Resource, Fails: !d.Weak, Evidence: d.Evidence()})
	}
	field(KindResidual, c.Residual, true)
	for _, u := range c.Unpaired {
		out = append(out, u.finding(g.FailOnCreate))
	}
	for _, d := range c.PendingDeletes {
		out = append(out, d.finding(g.FailOnDelete))
	}
	field(KindUnknown, c.Unknown, true)
	for _, u := range c.RulesUnjudged {
		evidence := fmt.Sprintf("%s (%s) on this resource: %s", u.At, u.Rule, u.Why)
		if len(u.More) > 0 {
			evidence += "; it also reads " + words.List(u.More, maxReads)
		}
		evidence += "; make the rule read only the values it writes, and copy them as they are (or let rebasegen generate the rules)"
		out = append(out, Finding{Kind: KindRuleUnjudged, Resource: u.Resource, Path: u.Path, Fails: true, File: u.At.File, Line: u.At.Line, Evidence: evidence})
	}
	for _, h := range c.Hidden {
		if h.Refused {
			out = append(out, refusedFinding(h))
			continue
		}
		evidence := "a change made in Git is hidden by %s: %s, and no manager other than the manifest's applier owns the field"
		if h.Owner != "" {
			// the controller's exemption is for the value kapp applied (probe7 D4)
			evidence = "a change made in Git is hidden by %s: %s; " + h.Owner + " owns the field, which exempts only the value kapp last applied (" +
				kappconv.Original + "), not a new one from Git; the rule is right while " + h.Owner + " owns the field: to make the change, change what drives " + h.Owner + drives(h.Path) + ", or take the field out of the manifest"
		}
		how := "kapp reports no update when the value changes"
		switch {
		case h.Misplaced:
			// not a value Git declares: an item Git inserted, removed or moved (newcomer10 N10-9)
			evidence = "another item's value is written here by %s: %s; to have each item keep its own, select the items by key (a ytt rule), or leave this list out of the rule's paths (rules rebasegen generated: regenerate them from these manifests)"
			how = h.How
		case h.Whole:
			evidence = "every change made in Git to the resource is hidden by %s, which writes this annotation onto the object kapp applies: %s"
			how = h.How
		case h.How != "":
			how = h.How
		case h.Rewritten:
			// kapp may keep the resource: the applied object differs from the manifest, not the live one
			how = "the object kapp applies holds the rules' value there, not the manifest's"
		}
		// what the author changes to have kapp apply it (newcomer walkthrough 4, item 1); rules
		// hiding it only together: either file's change does, regenerating one file does not
		// (newcomer11 N11-3)
		change := "take this field out of the rule's paths, or this resource out of its resourceMatchers (rules rebasegen generated: regenerate them)"
		switch {
		case h.Together:
			change = "take this field out of the paths of one of these rules, or this resource out of its resourceMatchers"
		case h.EachAlone:
			change = "take this field out of the paths of each of these rules, or this resource out of their resourceMatchers (rules rebasegen generated: regenerate them)"
		}
		switch {
		case h.Removed && h.Hypothetical:
			evidence += "; to let such a removal through, " + change
		case h.Removed:
			evidence += "; to apply the removal, " + change + ", and kapp removes it on deploy"
		case h.Builtin:
			evidence += "; no rule lets it through (kapp runs its default Config before the package's): to apply it, change the live object (kubectl edit), or take the field out of the manifest"
		case h.Redefaulted && h.CRD != "":
			// the rules right after the deploy copy the new default: regenerated now, they leave it out
			evidence += "; to apply it, " + change + ", and the API server defaults it anew with the CRD kapp applies first; or declare the CRD's new default in the manifest, which a copy from [new, existing] takes first"
		case h.Redefaulted:
			evidence += "; to apply it, " + change + ", and the API server defaults it anew"
		}
		out = append(out, Finding{Kind: KindHidden, Resource: h.Resource, Path: h.Path, Fails: true, File: h.At.File, Line: h.At.Line,
			Evidence: fmt.Sprintf(evidence, h.Rule, how)})
	}
	var pending []Residual
	for _, r := range refusedOnce(c.Pending) {
		if r.Finding.Blocks {
			field(KindImmutable, []Residual{r}, true)
		} else {
			pending = append(pending, r)
		}
	}
	pending = append(pending, c.Ended...)
	for _, s := range c.Stale {
		f := Finding{Kind: KindStale, File: s.File, Line: s.Line, Diff: s.Diff, Fails: true, Inputs: s.Inputs, InPlace: s.InPlace,
			Evidence: "regenerate it with the command in its header"}
		if s.InPlace != "" {
			f.Evidence = inPlaceHint(s.InPlace)
		}
		if why := strings.TrimSuffix(s.Why, "\n"); why != "" {
			// a fragment ("besides drift the rules keep (...), ") reads on into the evidence
			if !strings.HasSuffix(why, ", ") {
				why += "; "
			}
			f.Evidence = why + f.Evidence
		}
		out = append(out, f)
	}
	for _, r := range c.Drift {
		if r.Finding.Unserved {
			field(KindUnserved, []Residual{r}, true)
			continue
		}
		if gt := r.Finding.GitToo; gt != nil && slices.ContainsFunc(c.Hidden, func(h Hidden) bool { return h.Resource == r.Resource && h.Path == r.Finding.Path.String() }) {
			// the change made in Git beside the drift is hidden, no pending change
			r.Finding.Evidence = strings.TrimSuffix(r.Finding.Evidence, gt.Also) + gt.Hidden
		}
		kept := slices.IndexFunc(c.DriftKept, func(h Kept) bool { return h.Resource == r.Resource && h.Path == r.Finding.Path.String() })
		// a drift whose revert the server refuses, or that kapp's deploy makes by replacing a
		// CRD, fails whatever the flag, unless the rules keep the live value
		field(KindDrift, []Residual{r}, g.FailOnDrift || r.Finding.Blocks && kept < 0)
		out[len(out)-1].ServedUnknown = r.Finding.ServedUnknown
		if i := kept; i >= 0 {
			// kapp does not revert it: no default to regenerate the rules for
			out[len(out)-1].Evidence = strings.Replace(out[len(out)-1].Evidence, r.Finding.Redefaults, "", 1)
			by := c.DriftKept[i].Rule
			if c.DriftKept[i].At == (RuleAt{}) {
				by = "the rules in force together"
			}
			out[len(out)-1].Evidence += "; kept by " + by + ": kapp will NOT revert it"
		} else if kept := keptCauses(c.DriftKept, r); len(kept) > 0 {
			out[len(out)-1].Evidence += "; the rules keep " + strings.Join(kept, ", ") + ": kapp's deploy removes this field and the API server sets it again, " +
				"so kapp shows it as an update again whenever it diffs against the live object (a ghost diff that comes back after every deploy), until that change is undone on the cluster or declared in the manifest"
		}
	}
	field(KindPending, pending, false) // the deploy's purpose: reported, never failing
	// an adoption change kapp's deploy fails on fails the gate whatever the flag
	for _, r := range c.Adoption {
		field(KindAdoption, []Residual{r}, g.FailOnAdoption || r.Finding.Blocks)
	}
	for _, u := range c.Unjudged {
		keys := make([]string, len(u.Keys))
		for i, k := range u.Keys {
			keys[i] = "data." + k
		}
		out = append(out, Finding{Kind: KindUnjudged, Resource: u.Resource,
			Evidence: "rebasegen capture redacted its values (" + strings.Join(keys, ", ") + "): they were taken as the manifest's, so a change to them, in Git or on the cluster, cannot be seen; not counted as kept (check it against live objects read with the values: kubectl get -o yaml --show-managed-fields)"})
	}
	return out
}

// keptCauses are the drifts the rules keep among those r's field follows (classify.Finding.Follows:
// the server sets it for them): the server sets it again after kapp's deploy removes it, as long
// as the person's change stays (newcomer12 N12-4).
func keptCauses(kept []Kept, r Residual) []string {
	var out []string
	for _, p := range r.Finding.Follows {
		if slices.ContainsFunc(kept, func(k Kept) bool { return k.Resource == r.Resource && k.Path == p }) {
			out = append(out, p)
		}
	}
	return out
}

// Failing reports whether a finding fails the gate.
func Failing(fs []Finding) bool {
	for _, f := range fs {
		if f.Fails {
			return true
		}
	}
	return false
}

// inPlaceHint says how to regenerate a stale file whose Regenerate line writes to stdout.
func inPlaceHint(cmd string) string {
	return "its header's Regenerate line writes the rules to stdout (generated with > FILE): regenerate it in place with " + cmd
}

func hintSuffix(h string) string {
	if h == "" {
		return ""
	}
	return "; " + h
}

// AfterVersionWarning is fs after the warning that the server's minor version has no defaults
// data (none when warning is empty): a warning in every format, never failing the gate.
func AfterVersionWarning(warning string, fs []Finding) []Finding {
	if warning == "" {
		return fs
	}
	return append([]Finding{{Kind: KindServerVersion, Evidence: warning}}, fs...)
}

// GenerateFindings are generate's verdict as findings (Verdict.Findings), each failing where
// generate exits 3 for it: ghost diffs left, a hidden change, a field nothing explains, drift
// and adoption changes as g says. Pending creates and deletes and changes kapp's deploy fails on
// are warnings: generate deploys nothing (check fails on the latter, and on pending creates and
// deletes as its Gate says).
func (v Verification) GenerateFindings(g Gate, versionWarning string) []Finding {
	fs := v.Verdict.Findings(g)
	for i, f := range fs {
		switch f.Kind {
		case KindPendingCreate, KindPendingDelete, KindImmutable, KindDeployFails, KindUnserved:
			fs[i].Fails = false
		case KindDrift: // a revert kapp's deploy makes by replacing a CRD is check's to fail
			fs[i].Fails = g.FailOnDrift
		}
	}
	return AfterVersionWarning(versionWarning, fs)
}

// refusedFinding is a change made in Git with which the API server refuses the object kapp
// applies under the rules (Hidden.Refused): kapp's deploy fails on it, put down to the rules,
// at the line of the rule that writes what the server refuses (newcomer17 N17-3).
func refusedFinding(h Hidden) Finding {
	evidence := "the rules make kapp's deploy fail on this change made in Git (" + h.Rule + "): " + h.How
	if !h.RulesRefuse { // How says what the object holds, not what to do
		switch {
		case h.Together:
			evidence += "; to apply it, take this field out of the paths of one of these rules, or this resource out of its resourceMatchers"
		case h.EachAlone:
			evidence += "; to apply it, take this field out of the paths of each of these rules, or this resource out of their resourceMatchers (rules rebasegen generated: regenerate them now, from these manifests)"
		default:
			evidence += "; to apply it, take this field out of the rule's paths, or this resource out of its resourceMatchers (rules rebasegen generated: regenerate them now, from these manifests)"
		}
	}
	return Finding{Kind: KindImmutable, Resource: h.Resource, Path: h.Path, Fails: true, File: h.At.File, Line: h.At.Line, Evidence: evidence}
}

// drives names, for a field a controller owns, what the user changes instead of the field
// (newcomer7 N7-9 h: the replicas an HPA scales).
func drives(path string) string {
	if path == "spec.replicas" {
		return " (for the replicas an HorizontalPodAutoscaler scales: its minReplicas and maxReplicas)"
	}
	return ""
}

// updateRefused is how a blocked change's evidence ends where the API server refuses kapp's whole
// update of the object (classify's update validation), not a change of that field alone.
const updateRefused = "; kapp's deploy fails here: the API server refuses kapp's update of the "

// rulesCause is how classify's evidence of a refused update goes on where the rules in force
// cause the refusal: the update without them is accepted.
const rulesCause = "; the rebase rules cause it: "

// refusedByRules is the refusal of kapp's update that h's change carries (classify's update
// validation of the object kapp sends, Finding.Blocks) where the rules in force cause it, from
// "the API server refuses"; false where the change carries none, or one without the rules too.
func refusedByRules(pending []Residual, h Hidden) (string, bool) {
	i := slices.IndexFunc(pending, func(p Residual) bool { return p.Resource == h.Resource && p.Finding.Path.String() == h.Path })
	if i < 0 || !pending[i].Finding.Blocks {
		return "", false
	}
	e := pending[i].Finding.Evidence
	at := strings.Index(e, updateRefused)
	if at < 0 || !strings.Contains(e[at:], rulesCause) {
		return "", false
	}
	return strings.TrimPrefix(e[at:], "; kapp's deploy fails here: "), true
}

// refusedOnce is pending with the items of one list that one refusal of a resource's whole update
// blocks reported once, on the first of them, which names the others: each carried the same
// refusal, and a port changed to 70000 was reported twice, as the new item and as the removed
// one (newcomer15 N15-5). Changes elsewhere in the object keep their own finding.
func refusedOnce(pending []Residual) []Residual {
	type refusal struct {
		id        pair.Identity
		list, why string
	}
	first := map[refusal]int{}
	others := map[int][]string{}
	var out []Residual
	for _, r := range pending {
		i := strings.Index(r.Finding.Evidence, updateRefused)
		n := len(r.Finding.Path)
		if !r.Finding.Blocks || i < 0 || n == 0 || r.Finding.Path[n-1].FieldName != nil {
			out = append(out, r)
			continue
		}
		k := refusal{r.Resource, r.Finding.Path[:n-1].String(), r.Finding.Evidence[i:]}
		if at, ok := first[k]; ok {
			others[at] = append(others[at], r.Finding.Path.String())
			continue
		}
		first[k] = len(out)
		out = append(out, r)
	}
	for at, paths := range others {
		out[at].Finding.Evidence += "; the same refusal fails this deploy's other changes of the object with it: " + words.List(paths, maxReads)
	}
	return out
}
