// Package kapptest is the tests' oracle for what kapp does with their inputs, run through kapp
// v0.66.0's and the API server's own code, never through rebasegen's: kapp's deploy diff of
// desired against live under each base (Changes, BothBases), a first deploy's live capture where
// no cluster is at hand (Deployed), and the API server's defaulting and validation (Defaulted,
// DeploymentRefused). The tests of generator/ use it, so that each oracle is written once.
package kapptest

import (
	"os"
	"reflect"
	"slices"
	"testing"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	ctldiff "carvel.dev/kapp/pkg/kapp/diff"
	ctllog "carvel.dev/kapp/pkg/kapp/logger"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// Changes are the changes kapp's deploy of the desired files with the rule files into namespace,
// over the live capture (one file), makes, diffed
// against the last-applied copy (against) or the live object: kapp v0.66.0 as `kapp deploy`
// prepares and diffs (cmd/app/deploy.go: NewConfFromResourcesWithDefaults,
// LabeledResources.Prepare with the live objects' app label, the live objects as kapp lists them
// without their identity annotation, ChangeSetWithVersionedRs).
func Changes(t testing.TB, desired []string, live, namespace string, ruleFiles []string, against bool) []ctldiff.Change {
	t.Helper()
	read := func(p string) []ctlres.Resource {
		bs, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rs, err := ctlres.NewFileResource(ctlres.NewBytesSource(bs)).Resources()
		if err != nil {
			t.Fatal(err)
		}
		return rs
	}
	var all []ctlres.Resource
	for _, p := range append(append([]string{}, desired...), ruleFiles...) {
		all = append(all, read(p)...)
	}
	news, conf, err := ctlconf.NewConfFromResourcesWithDefaults(all)
	if err != nil {
		t.Fatal(err)
	}
	app := "app"
	for _, l := range read(live) {
		if v := l.Labels()[kappconv.AppLabel]; v != "" {
			app = v
		}
	}
	for _, r := range news {
		if r.Namespace() == "" {
			r.SetNamespace(namespace)
		}
	}
	sel, err := labels.Parse(kappconv.AppLabel + "=" + app)
	if err != nil {
		t.Fatal(err)
	}
	if err := ctlres.NewLabeledResources(sel, ctlres.IdentifiedResources{}, ctllog.NewNoopLogger()).Prepare(
		news, conf.OwnershipLabelMods(), conf.LabelScopingMods(true), conf.AdditionalLabels()); err != nil {
		t.Fatal(err)
	}
	lives := read(live)
	for _, l := range lives {
		if _, ok := l.Annotations()[kappconv.IdentityAnnotation]; ok {
			if err := ctlres.NewIdentityAnnotation(l).RemoveMod().Apply(l); err != nil {
				t.Fatal(err)
			}
		}
	}
	cf := ctldiff.NewChangeFactory(conf.RebaseMods(), conf.DiffAgainstLastAppliedFieldExclusionMods(), conf.DiffAgainstExistingFieldExclusionMods(), ctldiff.ChangeOpts{})
	if err := ctldiff.NewRenewableResources(lives, news).Prepare(); err != nil {
		t.Fatal(err)
	}
	changes, err := ctldiff.NewChangeSetWithVersionedRs(lives, news, conf.TemplateRules(), ctldiff.ChangeSetOpts{AgainstLastApplied: against}, cf).Calculate()
	if err != nil {
		t.Fatal(err)
	}
	return changes
}

// Change is a change of kapp's deploy and the base kapp diffed it against.
type Change struct {
	ctldiff.Change
	AgainstLastApplied bool
}

// BothBases are Changes under each base in turn, the last-applied copy first: the deploy a
// verdict must hold for whichever base kapp diffs against.
func BothBases(t testing.TB, desired []string, live, namespace string, ruleFiles []string) []Change {
	t.Helper()
	var out []Change
	for _, against := range bases() {
		for _, ch := range Changes(t, desired, live, namespace, ruleFiles, against) {
			out = append(out, Change{ch, against})
		}
	}
	return out
}

// MakesBoth reports whether kapp's deploy (Changes) with the rule files makes a change want holds,
// under both bases.
func MakesBoth(t testing.TB, desired []string, live, namespace string, ruleFiles []string, want func(ctldiff.Change) bool) bool {
	t.Helper()
	for _, against := range bases() {
		if !slices.ContainsFunc(Changes(t, desired, live, namespace, ruleFiles, against), want) {
			return false
		}
	}
	return true
}

// MakesEither reports whether kapp's deploy (Changes) with the rule files makes a change want holds,
// under either base.
func MakesEither(t testing.TB, desired []string, live, namespace string, ruleFiles []string, want func(ctldiff.Change) bool) bool {
	t.Helper()
	for _, against := range bases() {
		if slices.ContainsFunc(Changes(t, desired, live, namespace, ruleFiles, against), want) {
			return true
		}
	}
	return false
}

// Updates is the change kapp makes when it updates an object of kind whose value (of the object
// as kapp applies it, and of the live object) differs.
func Updates(kind string, value func(obj map[string]any) any) func(ctldiff.Change) bool {
	return func(ch ctldiff.Change) bool {
		return ch.Op() == ctldiff.ChangeOpUpdate && ch.NewResource().Kind() == kind &&
			!reflect.DeepEqual(value(ch.NewResource().UnstructuredObject()), value(ch.ExistingResource().UnstructuredObject()))
	}
}

// bases are kapp deploy's two bases: --diff-against-last-applied, then the live object.
func bases() []bool { return []bool{true, false} }
