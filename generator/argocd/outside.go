package argocd

// Argo CD's settings and annotations that take a resource out of its comparison or its sync
// (issue 23: every source that hides a change is judged, or refused naming what is not).

import (
	"fmt"
	"slices"

	"github.com/argoproj/argo-cd/gitops-engine/v3/pkg/sync/common"
	"github.com/argoproj/argo-cd/gitops-engine/v3/pkg/sync/hook"
	"github.com/argoproj/argo-cd/gitops-engine/v3/pkg/sync/ignore"
	"github.com/argoproj/argo-cd/v3/util/settings"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"

	"github.com/rebasegen/rebasegen/generator/lint"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/verdict"
	"github.com/rebasegen/rebasegen/internal/escape"
)

// argocd-cm's keys that choose the resources Argo CD watches (util/settings GetResourcesFilter):
// a resource they leave out is neither compared nor synced (controller/state.go: an
// ExcludedResourceWarning), so a change made in Git to it is never applied.
const (
	exclusionsKey = "resource.exclusions"
	inclusionsKey = "resource.inclusions"
	selectorsKey  = "resource.selectors"
)

// neverApplied is what Argo CD does with a resource its filter leaves out.
const neverApplied = ": Argo CD neither compares nor syncs it, so a change made in Git to it is never applied"

// resourceFilter is argocd-cm's resource filter as Argo CD reads it, with where each key is.
type resourceFilter struct {
	rf settings.ResourcesFilter
	at map[string]verdict.RuleAt
}

// readFilter reads argocd-cm's filter keys from data as Argo CD's settings manager does: a value
// Argo CD fails on is an error naming the key.
func readFilter(o load.Object, data map[string]any, lines *lint.Lines) (resourceFilter, error) {
	f := resourceFilter{at: map[string]verdict.RuleAt{}}
	for _, k := range []string{exclusionsKey, inclusionsKey, selectorsKey} {
		v, ok := data[k]
		if !ok {
			continue
		}
		at := verdict.RuleAt{File: o.Source.File, Doc: o.Source.Doc, Line: lines.At(o, "data", k), Key: fmt.Sprintf("data[%q]", k)}
		str, isString := v.(string)
		if !isString {
			return f, fmt.Errorf("%s: not a string (a YAML block: %s: |)", at, k)
		}
		rs := []settings.FilteredResource{}
		if err := yaml.Unmarshal([]byte(str), &rs); err != nil {
			return f, fmt.Errorf("%s: Argo CD fails on it: %w", at, err)
		}
		switch k {
		case exclusionsKey:
			f.rf.ResourceExclusions = rs
		case inclusionsKey:
			f.rf.ResourceInclusions = rs
		case selectorsKey:
			for _, r := range rs {
				if _, err := labels.Parse(r.Selector); err != nil {
					return f, fmt.Errorf("%s: Argo CD fails on the selector %q: %w", at, escape.Text(r.Selector), err)
				}
			}
			f.rf.ResourceSelectors = rs
		}
		f.at[k] = at
	}
	return f, nil
}

// leavesOut names the key of f that may take obj out of Argo CD's comparison and sync, and how;
// "" when none does. Which cluster the Application deploys to is not among the inputs, so a rule
// is taken to hold on every cluster it may name: an exclusion or a selector for some cluster
// counts, and an inclusion rule counts only where it holds on every cluster. Argo CD's own core
// exclusions (events, leases, metrics) hold with no argocd-cm.
func (f resourceFilter) leavesOut(obj *unstructured.Unstructured) (key, how string) {
	g, k := obj.GroupVersionKind().Group, obj.GetKind()
	every := func(r settings.FilteredResource) settings.FilteredResource { r.Clusters = nil; return r }
	if (&settings.ResourcesFilter{}).IsExcludedResource(g, k, "") {
		return "Argo CD's core exclusions (util/settings coreExcludedResources)", "exclude it" + neverApplied
	}
	if slices.ContainsFunc(f.rf.ResourceExclusions, func(r settings.FilteredResource) bool { return every(r).Match(g, k, "") }) {
		return f.at[exclusionsKey].String(), "excludes it" + neverApplied
	}
	if len(f.rf.ResourceInclusions) > 0 && !slices.ContainsFunc(f.rf.ResourceInclusions, func(r settings.FilteredResource) bool {
		return (len(r.Clusters) == 0 || slices.Contains(r.Clusters, "*")) && r.Match(g, k, "")
	}) {
		return f.at[inclusionsKey].String(), "does not include it" + neverApplied
	}
	for _, r := range f.rf.ResourceSelectors {
		sel, err := labels.Parse(r.Selector)
		if err == nil && every(r).Match(g, k, "") && !sel.Matches(labels.Set(obj.GetLabels())) {
			return f.at[selectorsKey].String(), fmt.Sprintf("keeps Argo CD from watching it (its labels do not match the selector %q): Argo CD compares it with no live object, and shows it OutOfSync whatever the cluster holds", r.Selector)
		}
	}
	return "", ""
}

// outside is an error naming the manifest desired and what takes it out of Argo CD's comparison
// or sync: argocd-cm's resource filter (f), or a hook annotation (hookOf); nil when nothing does.
// Such a resource is not judged: Argo CD never applies a change made in Git to it as a sync of the
// others would.
func (f resourceFilter) outside(desired load.Object) error {
	u := desired.Unstructured
	what := fmt.Sprintf("%s: %s %s", desired.Source, u.GetKind(), u.GetName())
	const leave = "not judged; leave it out of --desired and --live"
	if key, how := f.leavesOut(u); key != "" {
		return fmt.Errorf("%s: %s %s: %s, or take it out of the key", escape.Text(what), key, escape.Text(how), leave)
	}
	if how := hookOf(u); how != "" {
		return fmt.Errorf("%s: %s: %s", escape.Text(what), how, leave)
	}
	return nil
}

// hookOf names u's hook annotation and what Argo CD does with a manifest carrying it, as
// gitops-engine's hook and ignore packages judge it: Argo CD's reconciliation splits hooks (and
// annotations naming no hook type it knows) from the resources it compares, and its sync skips a
// resource whose only hook type is Skip; none of them has a sync status. "" for none.
func hookOf(u *unstructured.Unstructured) string {
	a := u.GetAnnotations()
	name := common.AnnotationKeyHook // Argo CD reads Helm's hook annotation only without its own
	if _, argo := a[name]; !argo {
		name = "helm.sh/hook"
	}
	where := escape.Text(fmt.Sprintf("annotation %s: %q", name, a[name]))
	switch {
	case hook.Skip(u):
		return where + ": Argo CD's sync skips it, so a change made in Git to it is never applied"
	case ignore.Ignore(u):
		return where + ": Argo CD ignores it (a hook annotation naming no hook type it knows)"
	case hook.IsHook(u):
		return where + ": Argo CD runs it as a hook, outside its comparison (it creates the object in the hook's phase)"
	}
	return ""
}
