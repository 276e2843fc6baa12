package classify

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/internal/kappconv"
	"github.com/rebasegen/rebasegen/rulesets"
)

// immutableChange says why kapp's deploy does not make a change made in Git at path, as evidence
// to append: the field is immutable (rulesets/immutable.yaml) and kapp updates the object in place,
// so the deploy fails on it (blocks); or the server keeps the live value on update (Kept), so the
// deploy leaves it as it is. Where the manifest has kapp replace the object
// (kapp.k14s.io/update-strategy always-replace, or fallback-on-replace where the update is
// refused), the server's create validation of the manifest decides instead (replaceRefused), but
// for a CRD, which kapp must never replace (crdReplacements). Not when it has kapp update nothing
// of it (skip) or create a new version of it (kapp.k14s.io/versioned).
func (c *classifier) immutableChange(fc fieldContext, path string) (why string, blocks, ok bool) {
	ann := fc.desired.GetAnnotations()
	strategy, _, _ := c.updateStrategy(fc)
	if _, versioned := ann[kappconv.Versioned]; versioned || strategy == "skip" {
		return "", false, false
	}
	if strategy != "always-replace" {
		why, blocks, ok = c.updateChange(fc, path)
		if !blocks || strategy != "fallback-on-replace" {
			return why, blocks, ok
		}
		if isCRD(fc) {
			return c.crdFallbackReplaced(fc, why), true, true
		}
	}
	// kapp replaces the object (fallback-on-replace: kapp's update is refused as invalid)
	if why, ok := c.replaceRefused(fc, strategy); ok {
		return why, true, true
	}
	return "", false, false
}

// frozenAt is whether the server refuses a change at path itself (not the update as a whole).
func (c *classifier) frozenAt(fc fieldContext, path string) bool {
	if _, ok := clusterIPChange(fc, path); ok {
		return true
	}
	_, ok := c.immutableAt(fc, path)
	return ok
}

// updateChange is immutableChange of kapp's in-place update.
func (c *classifier) updateChange(fc fieldContext, path string) (why string, blocks, ok bool) {
	if why, ok := clusterIPChange(fc, path); ok {
		return why, true, true
	}
	if e, ok := c.immutableAt(fc, path); ok {
		if e.Kept {
			return fmt.Sprintf("; but the deploy does not change it: the API server keeps the live value on update (rulesets: %s), so kapp shows this change again on every later deploy; take it out of the manifest, or make it where the source says", e.Source), false, true
		}
		while := ""
		if e.OnlyIf != "" {
			while = " while the live object's " + e.OnlyIf + " is true"
		}
		remedy := fmt.Sprintf("annotate the manifest with %s: fallback-on-replace (kapp then deletes and recreates the object), give the object a new name, or annotate it %s (kapp then creates a new object for each change)", kappconv.UpdateStrategy, kappconv.Versioned)
		if (schema.GroupKind{Group: fc.id.Group, Kind: fc.id.Kind}) == crdKind {
			remedy = crdRemedy
		}
		return fmt.Sprintf("; kapp's deploy fails here: %s is immutable%s (rulesets: %s), so the API server refuses kapp's update; %s", e.Path, while, e.Source, remedy), true, true
	}
	if why, ok := serviceUpdateRefused(fc); ok {
		return why, true, true
	}
	if why, ok := c.updateRefused(fc); ok {
		return why, true, true
	}
	if why, ok := c.crdUpdateRefused(fc); ok {
		return why, true, true
	}
	return "", false, false
}

// immutableAt is the entry of rulesets/immutable.yaml that makes the API server refuse a change
// at path of fc's object, if any.
func (c *classifier) immutableAt(fc fieldContext, path string) (compiledField, bool) {
	for _, e := range c.immutable {
		if e.Group != fc.id.Group || e.Kind != fc.id.Kind || !e.re.MatchString(path) || !frozen(e.Field, fc) {
			continue
		}
		if slices.ContainsFunc(e.Except, func(x rulesets.Exception) bool { return c.excepted(fc, path, x) }) {
			continue
		}
		return e, true
	}
	return compiledField{}, false
}

// immutableField reports whether path is a whole field rulesets/immutable.yaml lists for id's kind.
func (c *classifier) immutableField(id pair.Identity, path string) bool {
	return slices.ContainsFunc(c.immutable, func(e compiledField) bool {
		return e.Group == id.Group && e.Kind == id.Kind && e.Path == path
	})
}

// frozenWhole reports whether path is in a field rulesets/immutable.yaml lists for id's kind only
// while the live object says so (OnlyIf): the whole object's data is frozen then, so removing a
// part of it is a change the server refuses too.
func (c *classifier) frozenWhole(id pair.Identity, path string) bool {
	return slices.ContainsFunc(c.immutable, func(e compiledField) bool {
		return e.OnlyIf != "" && e.Group == id.Group && e.Kind == id.Kind && e.re.MatchString(path)
	})
}

// frozen reports whether the server refuses a change of e's field between fc's live object and
// its manifest, under e's conditions (rulesets.Field: OnlyIf, Unless, Tandem).
func frozen(e rulesets.Field, fc fieldContext) bool {
	if e.OnlyIf != "" {
		if on, _, _ := unstructured.NestedBool(fc.live.Object, strings.Split(e.OnlyIf, ".")...); !on {
			return false
		}
	}
	if e.Unless == "" {
		return true
	}
	var lifted bool
	field, value, valued := strings.Cut(e.Unless, "=")
	if valued {
		got, _, _ := unstructured.NestedString(fc.live.Object, strings.Split(field, ".")...)
		lifted = got == value
	} else {
		lifted, _, _ = unstructured.NestedBool(fc.live.Object, strings.Split(field, ".")...)
	}
	if lifted && e.Tandem != "" {
		v, _, _ := unstructured.NestedFieldNoCopy(fc.desired.Object, strings.Split(e.Path, ".")...)
		with, _, _ := unstructured.NestedFieldNoCopy(fc.desired.Object, strings.Split(e.Tandem, ".")...)
		lifted = v != nil && fielddiff.Equal(v, with)
	}
	return !lifted
}

// clusterIPChange says why the API server refuses an update changing a Service's primary
// clusterIP: once set it may not change, unless the Service is or becomes an ExternalName one,
// or stays headless (k8s.io/kubernetes v1.37.2 pkg/apis/core/validation/validation.go
// validateUpgradeDowngradeClusterIPs). rulesets/immutable.yaml cannot list it: whether it may
// change depends on other fields' values.
func clusterIPChange(fc fieldContext, path string) (string, bool) {
	if fc.id.Group != "" || fc.id.Kind != "Service" || path != "spec.clusterIP" {
		return "", false
	}
	want, _, _ := unstructured.NestedString(fc.desired.Object, "spec", "clusterIP")
	got, _, _ := unstructured.NestedString(fc.live.Object, "spec", "clusterIP")
	newType, _, _ := unstructured.NestedString(fc.desired.Object, "spec", "type")
	oldType, _, _ := unstructured.NestedString(fc.live.Object, "spec", "type")
	if want == "" || got == "" || want == got || newType == "ExternalName" || oldType == "ExternalName" {
		return "", false
	}
	return fmt.Sprintf("; kapp's deploy fails here: a Service's primary clusterIP may not change once set (k8s.io/kubernetes %s pkg/apis/core/validation/validation.go validateUpgradeDowngradeClusterIPs), so the API server refuses kapp's update (live %s); annotate the manifest with %s: fallback-on-replace (kapp then deletes and recreates the Service) or give it a new name", kappconv.Kubernetes, got, kappconv.UpdateStrategy), true
}

// excepted reports whether the change at path is in a part of an immutable field the server
// lets change (x), under x's conditions on the live object and the change.
func (c *classifier) excepted(fc fieldContext, path string, x rulesets.Exception) bool {
	// the pattern of a ruleset path, [*] any list item (a Pod's containers' images); checked when the ruleset was read
	if re, err := rulesets.PathPattern(x.Path); err != nil || !re.MatchString(path) {
		return false
	}
	for field, want := range x.When {
		got, _, _ := unstructured.NestedFieldNoCopy(fc.live.Object, strings.Split(field, ".")...)
		if want == nil && got != nil && got != "" || want != nil && got != *want {
			return false
		}
	}
	at := strings.Split(x.Path, ".")
	desired, _, _ := unstructured.NestedFieldNoCopy(fc.desired.Object, at...)
	for _, bound := range []struct {
		path string
		sign int
	}{{x.Above, 1}, {x.Below, -1}} {
		if bound.path == "" {
			continue
		}
		live, _, _ := unstructured.NestedFieldNoCopy(fc.live.Object, strings.Split(bound.path, ".")...)
		d, derr := resource.ParseQuantity(fmt.Sprint(desired))
		l, lerr := resource.ParseQuantity(fmt.Sprint(live))
		if desired == nil || live == nil || derr != nil || lerr != nil || d.Cmp(l) != bound.sign {
			return false
		}
	}
	if x.ClassAllows != "" {
		name, _, _ := unstructured.NestedString(fc.live.Object, "spec", "storageClassName")
		class, known := c.classes[name]
		if !known {
			return true // the class is not among the inputs: whether it allows cannot be told
		}
		allows, _, _ := unstructured.NestedBool(class, strings.Split(x.ClassAllows, ".")...)
		return allows
	}
	return true
}

// storageClasses are the live StorageClasses among the inputs, by name.
func storageClasses(set *pair.Set) map[string]map[string]any {
	out := map[string]map[string]any{}
	docs := append(append([]load.Doc(nil), set.Deleted...), set.LiveOnly...)
	for _, p := range set.Pairs {
		docs = append(docs, p.Live)
	}
	for _, d := range docs {
		if d.Kind != "StorageClass" || d.APIVersion != "storage.k8s.io/v1" {
			continue
		}
		if o, err := d.Object(); err == nil {
			out[d.Name] = o.Object
		}
	}
	return out
}

// keptRemedy is what to do about a removal the server does not make.
const keptRemedy = "a Service's clusterIP cannot change once set: recreate it (kapp.k14s.io/update-strategy: always-replace for one deploy)"

// headlessKept says why the removal made in Git of a headless Service's clusterIP: None, which
// kapp's last apply declared, changes nothing, as evidence to append: kapp's built-in rebase rule
// copies the live value into what it applies, and the API server keeps the old one in an update
// that has none (k8s.io/kubernetes pkg/registry/core/service/storage/storage.go
// patchAllocatedValues). Only None: a pinned address removed asks for an address of the
// server's choosing, which the kept one is; None removed asks for a normal Service, which it
// never becomes.
func headlessKept(fc fieldContext, path string, d fielddiff.Delta) (string, bool) {
	if fc.id.Group != "" || fc.id.Kind != "Service" || path != "spec.clusterIP" || d.Live != "None" {
		return "", false
	}
	if sent, ok := removedAsSent(fc, d); !ok || sent != "None" {
		return "", false
	}
	return fmt.Sprintf("; but the deploy does not change it: kapp's built-in rebase rule copies the live clusterIP into what it applies, and the API server keeps it in an update that has none (k8s.io/kubernetes %s pkg/registry/core/service/storage/storage.go patchAllocatedValues), so the Service stays headless; %s", kappconv.Kubernetes, keptRemedy), true
}
