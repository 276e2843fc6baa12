package argocd

// What a sync applies where the ignores take a field: Argo CD's sync option
// RespectIgnoreDifferences=true. Without it a sync applies the whole manifest, so a field an
// ignore takes is written from Git at every sync (a controller's value is overwritten, a change
// made in Git there is applied by the next sync something else starts, though the Application
// shows Synced); with it the sync first replaces every ignored field of the manifest with the live
// value (argo-cd v3.6.1 controller/sync.go normalizeTargetResources: util/argo/diff.Normalize with
// the comparison's ignores, then the live values patched back in), so those fields are never
// applied from Git.

import (
	"fmt"
	"strings"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/verdict"
	"github.com/rebasegen/rebasegen/internal/escape"
)

// RespectIgnores is the sync option: Argo CD reads it from the sync operation only (controller/
// sync.go), whose options an automated sync, and a manual one given none, take from the
// Application's spec.syncPolicy.syncOptions (appcontroller.go autoSync, server/application
// Sync); a resource's own argocd.argoproj.io/sync-options annotation is not read for it.
const RespectIgnores = "RespectIgnoreDifferences=true"

// CheckSyncOptions refuses what is no sync option in Argo CD's syntax (NAME=VALUE, as
// spec.syncPolicy.syncOptions holds them), and a RespectIgnoreDifferences option Argo CD would not
// match: it compares the whole string (SyncOptions.HasOption), so RespectIgnoreDifferences=True or
// one with spaces is silently off.
func CheckSyncOptions(opts []string) error {
	for _, o := range opts {
		name, value, ok := strings.Cut(o, "=")
		switch {
		case !ok || name == "" || value == "":
			return fmt.Errorf("--sync-option %s: not a sync option (NAME=VALUE, as an Application's spec.syncPolicy.syncOptions holds them: %s)", escape.Text(o), RespectIgnores)
		case o != RespectIgnores && o != "RespectIgnoreDifferences=false" && strings.EqualFold(strings.ReplaceAll(name, " ", ""), "RespectIgnoreDifferences"):
			return fmt.Errorf("--sync-option %s: Argo CD matches the option exactly and would take it as not given: %s", escape.Text(o), RespectIgnores)
		}
	}
	return nil
}

// recordSync notes the sync options of app (an Application read): whether its sync keeps the
// live value of the fields its comparison ignores (they hold RespectIgnores, matched as Argo
// CD's SyncOptions.HasOption matches: the whole string), whether it prunes (Prune=false).
func (s *Settings) recordSync(app load.Object) error {
	raw, _, err := unstructuredSlice(app.Object, "spec", "syncPolicy", "syncOptions")
	if err != nil {
		return fmt.Errorf("%s: spec.syncPolicy.syncOptions: %w", app.Source, err)
	}
	var opts v1alpha1.SyncOptions
	for i, o := range raw {
		str, ok := o.(string)
		if !ok {
			return fmt.Errorf("%s: spec.syncPolicy.syncOptions[%d]: not a string", app.Source, i)
		}
		opts = append(opts, str)
	}
	if s.syncOpts == nil {
		s.syncOpts = map[appRef]v1alpha1.SyncOptions{}
	}
	s.syncOpts[appRef{name: app.GetName(), namespace: app.GetNamespace()}] = opts
	return nil
}

// keepsIgnored reports whether Argo CD's sync of live keeps the live value of the fields the
// ignores take: the Application its tracking id names sets RespectIgnores. For an object no
// Application read tracks: whether every Application read sets it (judged under all of their
// ignores, see For); false when none was read (argocd-cm alone: the option is off by default).
func (s Settings) keepsIgnored(live *unstructured.Unstructured) bool {
	app := trackedBy(live)
	all := len(s.syncOpts) > 0
	for ref, opts := range s.syncOpts {
		keeps := opts.HasOption(RespectIgnores)
		if app != "" && ref.names(app, s.controlPlaneNamespace()) {
			return keeps
		}
		all = all && keeps
	}
	return app == "" && all
}

// Evidence of what the sync does with a change made in Git that the ignores hide: a sync taking
// the Application's options, or a manual sync given its own (Problem.Manual).
const (
	appliedNextSync = ": applied at the next sync, not shown as OutOfSync (no Application read sets the sync option " + RespectIgnores + ": a sync applies the whole manifest)"
	keptLive        = ": it never reaches the cluster, even when something else starts a sync (the Application's sync option " + RespectIgnores + " has every sync apply the live value there)"
	appliedManual   = ": applied by the sync, not shown as OutOfSync (the sync options given, --sync-option, do not hold " + RespectIgnores + ": the sync applies the whole manifest)"
	keptManual      = ": the sync never applies it (the sync option " + RespectIgnores + " given, --sync-option, has it apply the live value there)"
)

// syncEvidence is what the sync does with the change made in Git p names, which the ignores hide.
func syncEvidence(p Problem) string {
	switch {
	case p.Manual && p.SyncKeeps:
		return keptManual
	case p.Manual:
		return appliedManual
	case p.SyncKeeps:
		return keptLive
	}
	return appliedNextSync
}

// maskedEvidence is what the sync does with a declared field the ignores take that a controller
// owns (Masked): without RespectIgnores every sync writes the manifest's value over the
// controller's (an HPA's replicas reset at each sync another change starts), with it the
// controller keeps it.
func maskedEvidence(p Problem) string {
	const owned = "a change made in Git to this declared value does not show in Argo CD under the ignores; a controller owns the field, "
	switch {
	case p.Manual && p.SyncKeeps:
		return owned + "and the sync option " + RespectIgnores + " given (--sync-option) has the sync keep the controller's value"
	case p.Manual:
		return owned + "yet the sync options given (--sync-option) do not hold " + RespectIgnores + ": the sync writes the manifest's value back over the controller's"
	case p.SyncKeeps:
		return owned + "and the Application's sync option " + RespectIgnores + " has every sync keep the controller's value"
	}
	return owned + "yet no Application read sets the sync option " + RespectIgnores + ": every sync writes the manifest's value back over the controller's"
}

// Note is a line beside the findings that fails nothing: what a sync does with a declared field
// a controller owns under an ignore (SyncNotes), an object no Application read tracks (Tracking).
// The text and JSON formats say it on stderr; the github format annotates At, the entry taking
// the field or the document concerned, where known.
type Note struct {
	Warning bool
	Text    string // escape.Text where it names the inputs
	At      verdict.RuleAt
}

// String is n as stderr says it: "note: ..." or "warning: ...".
func (n Note) String() string {
	if n.Warning {
		return "warning: " + n.Text
	}
	return "note: " + n.Text
}

// SyncNotes say, for each declared field the ignores take that a controller owns (Masked), what
// a sync does with it: a note where the sync keeps the controller's value, a warning where it
// writes the manifest's value back, with the fix; at the entry taking it.
func (v Verification) SyncNotes() []Note {
	var out []Note
	for _, p := range v.Masked {
		at := escape.Text(p.Resource.String() + " " + p.Path)
		var n Note
		switch {
		case p.Manual && p.SyncKeeps:
			n.Text = fmt.Sprintf("%s: ignored where a controller owns it; the sync option %s given (--sync-option) keeps the controller's value at the sync", at, RespectIgnores)
		case p.Manual:
			n.Warning, n.Text = true, fmt.Sprintf("%s: ignored where a controller owns it, but the sync options given (--sync-option) do not hold %s: the sync writes the manifest's value back over the controller's (a manual sync's options replace the Application's: give it among them)", at, RespectIgnores)
		case p.SyncKeeps:
			n.Text = fmt.Sprintf("%s: ignored where a controller owns it; the Application's sync option %s keeps the controller's value at every sync", at, RespectIgnores)
		default:
			n.Warning, n.Text = true, fmt.Sprintf("%s: ignored where a controller owns it, but no Application read sets the sync option %s: every sync writes the manifest's value back over the controller's (add it to the Application's spec.syncPolicy.syncOptions)", at, RespectIgnores)
		}
		n.At = p.At
		out = append(out, n)
	}
	return out
}

// keepingSync is v for ignores written into an Application that sets RespectIgnores: every
// change and field it names is one that Application's sync keeps live (Generate's, whose
// Application is the only one, its ignores all those judged).
func (v Verification) keepingSync() Verification { return v.synced(true, false) }

// SyncedWith is v judged for a manual sync run with opts (check and generate --sync-option):
// Argo CD's API server takes a sync request's options, when it sends any, in place of the
// Application's spec.syncPolicy.syncOptions (server/application Sync), so RespectIgnores holds for
// that sync only when opts hold it (the CLI's argocd app sync --server-side, --replace or
// --apply-out-of-sync-only sends those options alone). The options change no comparison: only what
// the sync does with each change and field named changes.
func (v Verification) SyncedWith(opts []string) Verification {
	return v.synced(v1alpha1.SyncOptions(opts).HasOption(RespectIgnores), true)
}

func (v Verification) synced(keeps, manual bool) Verification {
	for _, ps := range []*[]Problem{&v.Hidden, &v.Masked} {
		kept := make([]Problem, len(*ps))
		for i, p := range *ps {
			p.SyncKeeps, p.Manual = keeps, manual
			kept[i] = p
		}
		*ps = kept
	}
	return v
}
