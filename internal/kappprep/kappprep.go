// Package kappprep prepares desired objects as `kapp deploy` does before it diffs, rebases or
// matches them (cmd/app/deploy.go newResources): kapp's own Preparation (validation, uniqueness,
// kapp.k14s.io/nonce), then LabeledResources.Prepare with the Config's ownership label rules,
// label scoping rules and additional labels (its app label and association label into
// metadata.labels, pod templates, selectors). Every part of rebasegen that hands a desired object
// to kapp's code (verify's diff engine, kappcover's rebase rules, lint's matchers, classify's
// comparison) prepares it here, so that each sees the object kapp sees; nothing here
// re-implements kapp.
package kappprep

import (
	"fmt"
	"strings"
	"sync"

	ctlapp "carvel.dev/kapp/pkg/kapp/app"
	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	"carvel.dev/kapp/pkg/kapp/logger"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// FallbackAppLabel is the kapp.k14s.io/app value new resources are labelled with when no live
// object tells the real one (kapp makes it from the app's record, which a capture does not
// hold); only the text of the diff of a create can show it.
const FallbackAppLabel = "rebasegen"

// AppLabel is the kapp.k14s.io/app value kapp labels desired with when live (nil: none) is what
// the cluster holds: live's own label, else FallbackAppLabel.
func AppLabel(live *unstructured.Unstructured) string {
	if live != nil {
		if v := live.GetLabels()[kappconv.AppLabel]; v != "" {
			return v
		}
	}
	return FallbackAppLabel
}

// Resources prepares rs in place as kapp deploy's newResources() does after reading the files,
// with conf (kapp's built-in Config and the package's, as NewConfFromResourcesWithDefaults reads
// them) and appLabel as the app's kapp.k14s.io/app value, and returns them. Discovery (namespace
// defaulting) is replaced by the namespaces the caller set: a kind is namespaced iff the caller
// gave its objects a namespace.
func Resources(conf ctlconf.Conf, rs []ctlres.Resource, appLabel string) ([]ctlres.Resource, error) {
	return NewPreparer(conf).Resources(rs, appLabel)
}

// Object is desired as kapp prepares it (Resources), a copy; desired is left as it is. kapp
// panics on some bad input (a label scoping rule's path through a list): that is an error.
func Object(conf ctlconf.Conf, desired *unstructured.Unstructured, appLabel string) (*unstructured.Unstructured, error) {
	return NewPreparer(conf).Object(desired, appLabel)
}

// A Preparer prepares objects with one Config as Resources and Object do, for many objects: the
// Config's ownership and label scoping rules are made into kapp's mods once, and each object's
// mods are those with its labels. It may be used concurrently.
//
// Performance: kapp makes every rule's matchers anew for each resource it labels
// (config.OwnershipLabelRule.AsMod); made for every pair, they were a fortieth of explain's
// allocations on the fixture mix.
type Preparer struct {
	conf ctlconf.Conf
	once sync.Once
	// the rules' mods without their labels (KVs); cached is false when making them panicked
	// (an unknown matcher): then every object is prepared by kapp's own functions, which panic
	// as they did before
	ownership, scoping []ctlres.StringMapAppendMod
	additional         map[string]string
	cached             bool
}

// NewPreparer prepares objects with conf.
func NewPreparer(conf ctlconf.Conf) *Preparer { return &Preparer{conf: conf} }

func (p *Preparer) init() {
	p.once.Do(func() {
		defer func() {
			if recover() != nil {
				p.ownership, p.scoping, p.additional = nil, nil, nil
			}
		}()
		p.ownership = p.conf.OwnershipLabelMods()(nil)
		p.scoping = p.conf.LabelScopingMods(true)(nil)
		p.additional = p.conf.AdditionalLabels()
		p.cached = true
	})
}

// withKVs returns mods as kapp's rule.AsMod(kvs) makes them: each with kvs as its labels.
func withKVs(mods []ctlres.StringMapAppendMod) func(kvs map[string]string) []ctlres.StringMapAppendMod {
	return func(kvs map[string]string) []ctlres.StringMapAppendMod {
		var out []ctlres.StringMapAppendMod
		for _, m := range mods {
			m.KVs = kvs
			out = append(out, m)
		}
		return out
	}
}

// Resources is the package's Resources with p's Config.
func (p *Preparer) Resources(rs []ctlres.Resource, appLabel string) ([]ctlres.Resource, error) {
	prep := ctlapp.NewPreparation(newOfflineTypes(rs), ctlapp.PrepareResourcesOpts{
		BeforeModificationFunc: func(rs []ctlres.Resource) []ctlres.Resource { return rs },
	})
	rs, err := prep.PrepareResources(rs)
	if err != nil {
		return nil, err
	}
	for _, r := range rs {
		if _, ok := r.Annotations()[kappconv.Nonce]; ok { // the time kapp wrote: see kappconv.NewNonce
			err := ctlres.StringMapAppendMod{ResourceMatcher: ctlres.AllMatcher{}, Path: ctlres.NewPathFromStrings([]string{"metadata", "annotations"}),
				KVs: map[string]string{kappconv.Nonce: kappconv.NewNonce}}.Apply(r)
			if err != nil {
				return nil, err
			}
		}
	}
	sel := labels.Set{kappconv.AppLabel: appLabel}.AsSelector()
	p.init()
	ownership, scoping, additional := p.conf.OwnershipLabelMods(), p.conf.LabelScopingMods(true), p.conf.AdditionalLabels()
	if p.cached {
		// kapp's LabeledResources.Prepare neither keeps nor changes the additional labels' map
		ownership, scoping, additional = withKVs(p.ownership), withKVs(p.scoping), p.additional
	}
	err = ctlres.NewLabeledResources(sel, ctlres.IdentifiedResources{}, logger.NewNoopLogger()).Prepare(
		rs, ownership, scoping, additional)
	return rs, err
}

// Object is the package's Object with p's Config.
func (p *Preparer) Object(desired *unstructured.Unstructured, appLabel string) (out *unstructured.Unstructured, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("kapp panicked preparing the resource: %v", r)
		}
	}()
	res := ctlres.NewResourceUnstructured(*desired.DeepCopy(), ctlres.ResourceType{})
	rs, err := p.Resources([]ctlres.Resource{res}, appLabel)
	if err != nil {
		return nil, err
	}
	return &unstructured.Unstructured{Object: rs[0].UnstructuredObject()}, nil
}

// offlineTypes stands in for discovery in kapp's Preparation: a kind is namespaced iff the caller
// gave its objects a namespace. (CRDs among the new resources still override, as in kapp.)
type offlineTypes []ctlres.ResourceType

var _ ctlres.ResourceTypes = offlineTypes{}

func newOfflineTypes(rs []ctlres.Resource) offlineTypes {
	var ts offlineTypes
	idx := map[schema.GroupVersionKind]int{}
	for _, r := range rs {
		gvk := r.GroupVersion().WithKind(r.Kind())
		if j, ok := idx[gvk]; ok {
			ts[j].APIResource.Namespaced = ts[j].APIResource.Namespaced || r.Namespace() != ""
			continue
		}
		idx[gvk] = len(ts)
		ts = append(ts, ctlres.ResourceType{
			GroupVersionResource: gvk.GroupVersion().WithResource(strings.ToLower(gvk.Kind)),
			APIResource: metav1.APIResource{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind,
				Namespaced: r.Namespace() != ""},
		})
	}
	return ts
}

func (t offlineTypes) All(bool) ([]ctlres.ResourceType, error) { return t, nil }

func (t offlineTypes) Find(res ctlres.Resource) (ctlres.ResourceType, error) {
	gvk := res.GroupVersion().WithKind(res.Kind())
	for _, rt := range t {
		if rt.APIResource.Group == gvk.Group && rt.APIResource.Version == gvk.Version && rt.APIResource.Kind == gvk.Kind {
			return rt, nil
		}
	}
	return ctlres.ResourceType{}, fmt.Errorf("unknown kind %s", gvk)
}

func (offlineTypes) CanIgnoreFailingGroupVersion(schema.GroupVersion) bool { return false }
