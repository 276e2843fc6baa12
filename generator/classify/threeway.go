package classify

// A field changed both in Git and on the cluster: the three-way view of issue 24 (what the
// applier last applied, what the manifest declares now, what the live object holds).

import (
	"encoding/json"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
)

// GitChange is, beside a Drift finding, the change Git made to the same field since the applier's
// last apply: the person's edit is drift, and the manifest's new value is a change made in Git,
// which the next deploy applies over it (kapp diffs against the live object; newcomer11 N11-1: it
// was reported as drift alone, and counted nowhere as a pending change).
type GitChange struct {
	// Original is what the applier last applied there (kapp.k14s.io/original, or Argo CD's last
	// sync), masked for a Secret; Held is false where it held no value there.
	Original any
	Held     bool
	// Evidence is the pending change's, as check reports it beside the drift. Also ends the
	// drift's evidence with the change made in Git; Hidden is what check ends it with instead
	// where the rules in force hide that change (no pending change then: kapp never applies it).
	Evidence, Also, Hidden string
}

// Pending returns the change made in Git f's field holds beside its drift, as a pending finding:
// its owner is the manager that rewrote what the applier applied (the person's tool), its values
// the drift's. false for a finding without one.
func (f Finding) Pending() (Finding, bool) {
	if f.GitToo == nil {
		return Finding{}, false
	}
	p := f
	p.Class, p.Evidence, p.Warning = Pending, f.GitToo.Evidence, ""
	return p, true
}

// GitToo counts the Drift findings whose field Git changed too (Finding.GitToo).
func (r *Report) GitToo() int {
	n := 0
	for _, res := range r.Resources {
		for _, f := range res.Findings {
			if f.GitToo != nil {
				n++
			}
		}
	}
	return n
}

// gitToo marks f, a Drift finding of a field the manifest declares, where the manifest declares
// another value than the applier last applied (or one it did not apply at all): Git changed the
// field too. Its evidence is given the three values, masked as f's are (secret: a Secret's data,
// kubectl's copy of the applied manifest). A field the manifest no longer declares is a removal
// made in Git where the last apply held it (fix28e: a person's edit of a field Git then removed
// was reported as drift alone), the person's addition alone where it did not; a record the
// manifest's value matches is the person's edit alone.
func gitToo(fc fieldContext, d fielddiff.Delta, f *Finding, secret bool) {
	if f.Class != Drift || fc.sentAt == nil || d.Change == fielddiff.Canonical || d.Path.String() == "apiVersion" {
		return
	}
	want, declared := d.Path.GetDeclared(fielddiff.FoldStringData(fc.desired).Object) // f.Desired is masked for a Secret
	original, held := fc.sentAt.GetDeclared(d.Path)
	held = held && original != nil // kapp's last apply stored a null as no value
	if !declared && !held || held && declared && fielddiff.Equal(original, want) {
		return
	}
	if secret {
		original = mask(original)
	}
	live := "the live object holding none" // a declared field the person removed
	if d.Change != fielddiff.Removed {
		live = "the live " + quoted(f.Live)
		if f.Owner != "" {
			live = f.Owner + "'s " + quoted(f.Live)
		}
	}
	last := fc.lastApply.who + " last applied " + quoted(original) + " (" + fc.lastApply.annotation + ")"
	if !held {
		last = fc.lastApply.String() + " did not hold it"
	}
	declares, applies, applying := "the manifest now declares "+quoted(f.Desired), ", which "+fc.lastApply.deploy+" applies over "+live, "applying"
	if !declared { // removed in Git: kapp's update (its built-in rules alone) leaves the field out
		declares, applies, applying = "the manifest no longer declares it", ", so "+fc.lastApply.deploy+" removes "+live, "removing it"
		if v, ok := defaultedAgain(fc, d.Path); ok { // the update lacks it: the server defaults it anew
			applies, applying = ", so the server defaults it to "+quoted(v)+" on "+fc.lastApply.deploy+" over "+live, "changing it"
		}
	}
	f.GitToo = &GitChange{Original: original, Held: held,
		Evidence: "a change made in Git: " + last + "; " + declares + applies + " (drift, reported apart)",
		Also:     "; Git changed it too: " + last + ", and " + declares + applies + " (a pending change from Git, reported apart)",
		Hidden:   "; Git changed it too: " + last + ", and " + declares + ", which the rules in force keep " + fc.lastApply.deploy + " from " + applying + " (hidden, reported apart)"}
	f.Evidence += f.GitToo.Also
}

// quoted is a value as evidence quotes it: a string as it is, anything else as JSON, cut to 60
// characters (the finding's values are whole in the JSON outputs).
func quoted(v any) string {
	s, ok := v.(string)
	if !ok || s == "" {
		bs, _ := json.Marshal(v)
		s = string(bs)
	}
	if rs := []rune(s); len(rs) > 60 {
		s = string(rs[:57]) + "..."
	}
	return s
}
