// Package argocd is the Argo CD target: an Application's spec.ignoreDifferences (or argocd-cm
// resource.customizations.ignoreDifferences) written from classify's findings, and judged with
// Argo CD's own comparison (util/argo/diff StateDiff, gitops-engine pkg/diff). It is a stage of
// its own that only cmd/rebasegen imports, so that the kapp stages do not link Argo CD.
package argocd

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	gdiff "github.com/argoproj/argo-cd/gitops-engine/v3/pkg/diff"
	"github.com/argoproj/argo-cd/v3/common"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/argoproj/argo-cd/v3/util/argo"
	argodiff "github.com/argoproj/argo-cd/v3/util/argo/diff"
	"github.com/argoproj/argo-cd/v3/util/argo/normalizers"
	"github.com/argoproj/argo-cd/v3/util/glob"
	"github.com/argoproj/argo-cd/v3/util/settings"
	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/managedfields"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/verdict"
	"github.com/rebasegen/rebasegen/internal/escape"
)

// Ignore is one entry of an Application's spec.ignoreDifferences, Argo CD's own type.
type Ignore = v1alpha1.ResourceIgnoreDifferences

// Settings are what an Application and argocd-cm give Argo CD's comparison of a resource.
type Settings struct {
	Ignores []Ignore // the Application's spec.ignoreDifferences
	// Overrides are argocd-cm's resource.customizations by "group/kind" (Argo CD's key), without
	// the status ignore Argo CD adds by default (Diff adds it).
	Overrides map[string]v1alpha1.ResourceOverride
	// CompareOptions are argocd-cm's resource.compareoptions; nil for Argo CD's defaults.
	CompareOptions *settings.ArgoCDDiffOptions
	// Where Read found the entries (file, document, the entry's line and key), for the findings
	// about an entry (lint's, a hidden change's): Ignores' by index, Overrides' by key.
	ignoresAt []verdict.RuleAt
	// ignoresOf are the Applications Ignores' entries belong to, by index (Read's); an entry
	// without one applies to every object.
	ignoresOf    []appRef
	syncOpts     map[appRef]v1alpha1.SyncOptions // the Applications read: their spec.syncPolicy.syncOptions (respect.go)
	overridesAt  map[string]verdict.RuleAt
	controlPlane string // the namespace of the argocd-cm read, "" when none was
	// filter is argocd-cm's resource filter (resource.exclusions, inclusions, selectors)
	filter resourceFilter
	// gvks is the cluster's GVK parser Argo CD types objects with (schema.go): the built-in kinds'
	// and the inputs' CRDs'; nil for the built-in kinds' only. schema is the document it is
	// parsed from, for the jq child (nil for the built-in kinds' only).
	gvks   *managedfields.GvkParser
	schema []byte
}

// appRef is an Application, as a tracking id names it: its name, or namespace_name for an
// Application outside Argo CD's namespace (apps in any namespace).
type appRef struct{ name, namespace string }

// names reports whether the tracking id's Application name tracked is a's, when Argo CD runs in
// namespace controlPlane: Argo CD writes an Application's name alone when it is in that
// namespace, and namespace_name otherwise (apps in any namespace; "_" is in no name the API
// server accepts). An Application read without a namespace is taken to be in either.
func (a appRef) names(tracked, controlPlane string) bool {
	ns, name, qualified := strings.Cut(tracked, "_")
	if !qualified {
		return tracked == a.name && (a.namespace == "" || a.namespace == controlPlane)
	}
	return name == a.name && (a.namespace == "" || a.namespace == ns)
}

// splitApp is the Application a tracking id's name names: namespace_name outside Argo CD's
// namespace, else the name alone, in controlPlane.
func splitApp(tracked, controlPlane string) appRef {
	if ns, name, ok := strings.Cut(tracked, "_"); ok {
		return appRef{name: name, namespace: ns}
	}
	return appRef{name: tracked, namespace: controlPlane}
}

// Names reports whether app, an Application named as --app takes it (its name, or
// namespace_name as a tracking id writes it), is the one the tracking id's name tracked names.
func Names(app, tracked string) bool {
	_, name, qualified := strings.Cut(tracked, "_")
	return app == tracked || qualified && app == name
}

// controlPlaneNamespace is the namespace Argo CD runs in: argocd-cm's, else the namespace its
// install manifests use.
func (s Settings) controlPlaneNamespace() string {
	if s.controlPlane != "" {
		return s.controlPlane
	}
	return defaultControlPlane
}

const defaultControlPlane = "argocd"

// trackedBy is the Application the live object's tracking id names, "" for none.
func trackedBy(live *unstructured.Unstructured) string {
	if inst := argo.NewResourceTracking().GetAppInstance(live, trackingMethod, ""); inst != nil {
		return inst.ApplicationName
	}
	return ""
}

// For is s as Argo CD compares the live object: an Application's ignoreDifferences apply only to
// the objects it tracks (the live object's tracking id names it); argocd-cm's to every object. An
// object no Application tracks is judged under every Application's ignores s holds.
func (s Settings) For(live *unstructured.Unstructured) Settings {
	app := trackedBy(live)
	if app == "" || len(s.ignoresOf) == 0 {
		return s
	}
	out := s
	out.Ignores, out.ignoresAt, out.ignoresOf = nil, nil, nil
	for i, ig := range s.Ignores {
		if i < len(s.ignoresOf) && s.ignoresOf[i] != (appRef{}) && !s.ignoresOf[i].names(app, s.controlPlaneNamespace()) {
			continue
		}
		out.Ignores = append(out.Ignores, ig)
		if i < len(s.ignoresAt) {
			out.ignoresAt = append(out.ignoresAt, s.ignoresAt[i])
		}
		if i < len(s.ignoresOf) {
			out.ignoresOf = append(out.ignoresOf, s.ignoresOf[i])
		}
	}
	return out
}

// TrackedApps are the Applications the live objects' tracking ids name, sorted.
func TrackedApps(rep *classify.Report) []string {
	var out []string
	for _, r := range rep.Resources {
		_, live, err := r.Objects()
		if err != nil {
			continue
		}
		if app := trackedBy(live.Unstructured); app != "" {
			out = append(out, app)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Tracking says which objects no Application in s tracks (when s holds several: which one's
// ignores Argo CD applies is not known), which are tracked by an Application s does not hold,
// and which Applications in s track none of the objects: their ignores are judged on nothing.
// Each warning is at the object's manifest, or at the Application's first entry.
func Tracking(rep *classify.Report, s Settings) []Note {
	var apps []appRef
	first := map[appRef]verdict.RuleAt{}
	for i, a := range s.ignoresOf {
		if a != (appRef{}) && !slices.Contains(apps, a) {
			apps = append(apps, a)
			if i < len(s.ignoresAt) {
				first[a] = s.ignoresAt[i]
			}
		}
	}
	if len(apps) == 0 {
		return nil
	}
	var out []Note
	warn := func(at verdict.RuleAt, format string, args ...any) {
		out = append(out, Note{Warning: true, At: at, Text: escape.Text(fmt.Sprintf(format, args...))})
	}
	tracked := false // some object is tracked: an Application tracking none of them is one not in force here
	used := map[appRef]bool{}
	for _, r := range rep.Resources {
		desired, live, err := r.Objects()
		if err != nil {
			continue
		}
		manifest := verdict.RuleAt{File: desired.Source.File, Doc: desired.Source.Doc, Line: desired.Source.Line}
		app := trackedBy(live.Unstructured)
		if app == "" {
			if len(apps) > 1 {
				warn(manifest, "%s: no Application tracks it (no argocd.argoproj.io/tracking-id): judged under the ignores of every Application in the rules", r.ID)
			}
			continue
		}
		tracked = true
		found := false
		for _, a := range apps {
			if a.names(app, s.controlPlaneNamespace()) {
				used[a], found = true, true
			}
		}
		if !found {
			warn(manifest, "%s: tracked by Application %s, which the rules do not hold: no Application's ignores apply to it", r.ID, app)
		}
	}
	for _, a := range apps {
		if tracked && !used[a] {
			warn(first[a], "Application %s tracks none of the objects: its ignores apply to none of them", a.name)
		}
	}
	return out
}

// WithAnnotations is s with the ignores the desired objects' argocd.argoproj.io/ignore-differences
// annotations make, each read as Argo CD reads it (util/argo/diff
// ExtractIgnoreDifferencesFromAnnotations: the annotation's jsonPointers, for that resource), and
// named by the document that declares it. Argo CD's StateDiff applies them from the manifest
// whatever s holds; in s they are a rule source like any other: counted, linted and
// mutation-checked (Verify), since whoever edits the manifest can silence Argo CD with one.
func (s Settings) WithAnnotations(rep *classify.Report) (Settings, error) {
	out := s
	out.Ignores, out.ignoresAt, out.ignoresOf = slices.Clone(s.Ignores), slices.Clone(s.ignoresAt), slices.Clone(s.ignoresOf)
	for len(out.ignoresAt) < len(out.Ignores) {
		out.ignoresAt = append(out.ignoresAt, verdict.RuleAt{})
	}
	for len(out.ignoresOf) < len(out.Ignores) {
		out.ignoresOf = append(out.ignoresOf, appRef{})
	}
	for _, r := range rep.Resources {
		desired, _, err := r.Objects()
		if err != nil {
			return Settings{}, err
		}
		if err := s.filter.outside(desired); err != nil {
			return Settings{}, err
		}
		for _, ig := range argodiff.ExtractIgnoreDifferencesFromAnnotations([]*unstructured.Unstructured{desired.Unstructured}) {
			out.Ignores = append(out.Ignores, ig)
			out.ignoresAt = append(out.ignoresAt, verdict.RuleAt{File: desired.Source.File, Doc: desired.Source.Doc, Line: desired.Source.Line, Key: annotatedKey})
			out.ignoresOf = append(out.ignoresOf, appRef{}) // it names its resource
		}
	}
	return out, nil
}

// annotatedKey names an ignore a manifest's annotation makes (WithAnnotations), where it is written.
var annotatedKey = "metadata.annotations[" + common.AnnotationKeyIgnoreDifferences + "]"

// withoutAnnotatedIgnores is a copy of desired whose argocd.argoproj.io/ignore-differences
// annotation, if any, ignores nothing (Argo CD skips an empty one): the comparison Argo CD would
// make if the manifest did not carry it, for the mutation check's comparison without ignores.
func withoutAnnotatedIgnores(desired *unstructured.Unstructured) *unstructured.Unstructured {
	out := desired.DeepCopy()
	if a := out.GetAnnotations(); a[common.AnnotationKeyIgnoreDifferences] != "" {
		a[common.AnnotationKeyIgnoreDifferences] = ""
		out.SetAnnotations(a)
	}
	return out
}

// Argo CD's tracking defaults (v3): the app instance label key and annotation tracking.
const (
	appLabelKey    = common.LabelKeyAppInstance
	trackingMethod = v1alpha1.TrackingMethodAnnotation
)

// compareOptions are s's resource.compareoptions, Argo CD's defaults where argocd-cm sets none.
func (s Settings) compareOptions() settings.ArgoCDDiffOptions {
	if s.CompareOptions == nil {
		return settings.GetDefaultDiffOptions()
	}
	return *s.CompareOptions
}

// Plain is s without its ignores: Argo CD's comparison under the same compare options.
func (s Settings) Plain() Settings {
	return Settings{CompareOptions: s.CompareOptions, gvks: s.gvks, schema: s.schema}
}

// overrides are s's overrides with the status ignore settings.GetResourceOverrides adds for
// ignoreResourceStatusField: for every kind when it is unset, "all" or a value Argo CD does not
// know; for CRDs with "crd"; none with "none", "off" or "false".
func (s Settings) overrides() map[string]v1alpha1.ResourceOverride {
	out := map[string]v1alpha1.ResourceOverride{}
	for k, v := range s.Overrides {
		out[k] = v
	}
	key := "*/*"
	switch s.compareOptions().IgnoreResourceStatusField {
	case settings.IgnoreResourceStatusInNone, "off", "false":
		return out
	case settings.IgnoreResourceStatusInCRD:
		key = "apiextensions.k8s.io/CustomResourceDefinition"
	}
	o := out[key]
	o.IgnoreDifferences.JSONPointers = append(append([]string(nil), o.IgnoreDifferences.JSONPointers...), "/status")
	out[key] = o
	return out
}

// judgedJQTimeout is the deadline of a jq ignore in rebasegen's own comparisons, in place of
// Argo CD's (normalizers.DefaultJQExecutionTimeout): Argo CD skips an expression past its
// deadline, so under Argo CD's a slow expression's verdict would depend on this machine's load.
// Diff bounds every expression by its steps first (maxJQSteps), and the jq child by its time
// (jqLimits), so this deadline is never the one that stops it: the verdict judges every expression within the bound applied, as an Argo CD
// controller with time to spare applies it, whatever the load; lint reports an expression whose
// steps come anywhere near Argo CD's limit.
const judgedJQTimeout = time.Hour

func (s Settings) config() (argodiff.DiffConfig, error) {
	ignores := s.Ignores
	if ignores == nil {
		ignores = []Ignore{}
	}
	p, err := s.parser()
	if err != nil {
		return nil, err
	}
	return argodiff.NewDiffConfigBuilder().
		WithDiffSettings(ignores, s.overrides(), s.compareOptions().IgnoreAggregatedRoles, normalizers.IgnoreNormalizerOpts{JQExecutionTimeout: judgedJQTimeout}).
		WithTracking(appLabelKey, string(trackingMethod)).
		WithNoCache().
		WithGVKParser(p).           // as Argo CD's controller passes the cluster's (controller/state.go)
		WithLogger(logr.Discard()). // its messages (a Secret it cannot decode) would reach stderr through klog
		Build()
}

// Diff is Argo CD's comparison of desired (what Git renders) with live under s, as its
// application controller makes it without server-side diff: StateDiff, normalizations included.
func Diff(desired, live *unstructured.Unstructured, s Settings) (*gdiff.DiffResult, error) {
	diffs.Add(1)
	s = s.For(live)
	p, err := s.parser()
	if err != nil {
		return nil, err
	}
	if err := s.managersUnjudged(desired, p); err != nil {
		return nil, err
	}
	if !s.inChild(desired) {
		return s.compare(desired, live)
	}
	req, err := s.request(opDiff, desired, live)
	if err != nil {
		return nil, err
	}
	res, err := s.call(req, desired)
	return res.Diff, err
}

// compare is Diff's comparison, in the jq child where an expression of s applies.
func (s Settings) compare(desired, live *unstructured.Unstructured) (*gdiff.DiffResult, error) {
	dc, err := s.config()
	if err != nil {
		return nil, fmt.Errorf("argo cd diff settings: %w", err)
	}
	if err := s.jqBounded(desired, live); err != nil {
		return nil, err
	}
	target, err := tracked(desired, live)
	if err != nil {
		return nil, err
	}
	res, err := argodiff.StateDiff(context.Background(), live.DeepCopy(), target, dc)
	if err != nil {
		return nil, fmt.Errorf("argo cd diff of %s %s: %w", desired.GetKind(), desired.GetName(), err)
	}
	return &res, nil
}

// tracked is a copy of desired with the tracking annotation Argo CD stamps on every target object
// before it compares it (controller/state.go NormalizeTargetObjects -> SetAppInstance), for the
// Application and destination namespace the live object's annotation names. A live object no
// Application tracks (another tool applied it) is compared with the manifest as it is.
func tracked(desired, live *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	rt := argo.NewResourceTracking()
	d := desired.DeepCopy()
	inst := rt.GetAppInstance(live, trackingMethod, "")
	if inst == nil {
		return d, nil
	}
	if err := rt.SetAppInstance(d, appLabelKey, inst.ApplicationName, inst.Namespace, trackingMethod, ""); err != nil {
		return nil, fmt.Errorf("argo cd tracking of %s %s: %w", desired.GetKind(), desired.GetName(), err)
	}
	return d, nil
}

// Applies reports whether some entry of s applies to the resource, as Argo CD matches them: its
// ignore normalizer matches argocd-cm's keys ("group/kind" or a core "kind", either a glob) and
// the Application's entries by glob; its managedFieldsManagers lookup takes a key by its exact
// "group/kind".
func (s Settings) Applies(u *unstructured.Unstructured) bool {
	gvk := u.GroupVersionKind()
	if ok, _ := argodiff.NewIgnoreDiffConfig(s.Ignores, s.Overrides).HasIgnoreDifference(gvk.Group, gvk.Kind, u.GetName(), u.GetNamespace()); ok {
		return true
	}
	for key, o := range s.Overrides {
		if len(o.IgnoreDifferences.JSONPointers)+len(o.IgnoreDifferences.JQPathExpressions) == 0 {
			continue
		}
		if group, kind, ok := overrideGroupKind(key); ok && glob.Match(group, gvk.Group) && glob.Match(kind, gvk.Kind) {
			return true
		}
	}
	return false
}

// objects decodes the two sides of a diff result.
func objects(res *gdiff.DiffResult) (predicted, live map[string]any, err error) {
	if err = json.Unmarshal(res.PredictedLive, &predicted); err == nil {
		err = json.Unmarshal(res.NormalizedLive, &live)
	}
	return predicted, live, err
}
