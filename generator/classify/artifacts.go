package classify

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// emptyAnnotations finds the empty annotations map kapp leaves behind: when the live object's
// only annotations are kapp's own, kapp strips them when it reads the object but keeps
// `annotations: {}`, so under the live base every such resource shows `- annotations: {}`
// (measured with kapp v0.66.0). The field diff hides kapp's keys, so this is added here.
// reverted are the live keys kapp's deploy removes (RevertedAnnotations): once it has, the map
// is kapp's alone, and rules written without the artifact stopped holding after the very deploy
// generate predicted (newcomer13 N13-3: a person's `kubectl annotate` left the kind out).
func emptyAnnotations(desired, live *unstructured.Unstructured, reverted map[string]bool) (Finding, bool) {
	if len(desired.GetAnnotations()) > 0 {
		return Finding{}, false
	}
	ann := live.GetAnnotations()
	if len(ann) == 0 {
		return Finding{}, false
	}
	others := false
	for k := range ann {
		if !strings.HasPrefix(k, kappconv.Prefix) {
			if !reverted[k] {
				return Finding{}, false
			}
			others = true
		}
	}
	evidence := "kapp strips its own annotations from the live object and keeps an empty annotations map, " +
		"shown as removed whenever kapp diffs against the live object (kapp v" + kappconv.Kapp + ")"
	if others {
		evidence += "; the live object's other annotations are a person's or removed in Git, which kapp's deploy removes: the map is empty from then on"
	}
	return Finding{
		Path:     fielddiff.FromFields([]string{"metadata", "annotations"}),
		Change:   fielddiff.Added,
		Class:    KappArtifact,
		Owner:    "kapp",
		Live:     map[string]any{},
		KappView: true,
		Evidence: evidence,
	}, true
}

// RevertedAnnotations returns the live annotations that kapp's deploy removes among findings
// (one resource's): a person's (drift) or one Git removed (pending), only live holding it, which
// no rule keeps (kapp's or the package's rules do).
func RevertedAnnotations(findings []Finding) map[string]bool {
	var out map[string]bool
	for _, f := range findings {
		if f.Class != Drift && f.Class != Pending || f.Change != fielddiff.Added || f.Covered() || len(f.Path) != 3 {
			continue
		}
		if fields, ok := f.Path.Fields(); ok && fields[0] == "metadata" && fields[1] == "annotations" {
			if out == nil {
				out = map[string]bool{}
			}
			out[fields[2]] = true
		}
	}
	return out
}

// stringDataMoved finds a Secret whose stringData the server moved into data: the field diff
// compares them folded, but kapp compares text and shows stringData added and data removed.
// A key whose value differs is a real change, which the field diff reports (a person's edit of
// the value is drift); the form of the others is still no change, and is ruled (newcomer
// walkthrough 4, item 2: one edited value made the whole stringData unruled, a residual ghost
// diff). Values are never copied into the finding.
func stringDataMoved(desired, live *unstructured.Unstructured) (Finding, bool) {
	sd, ok := desired.Object["stringData"].(map[string]any)
	if !ok || len(sd) == 0 || desired.GetKind() != "Secret" || desired.GetAPIVersion() != "v1" {
		return Finding{}, false
	}
	data, _ := live.Object["data"].(map[string]any)
	moved := false
	for k, v := range sd {
		moved = moved || data[k] == fielddiff.Stored(v)
	}
	if !moved {
		return Finding{}, false // every value changed: the field diff reports each
	}
	return Finding{
		Path:     fielddiff.FromFields([]string{"stringData"}),
		Change:   fielddiff.Removed,
		Class:    Calculated,
		Desired:  Masked,
		KappView: true,
		Evidence: "the API server stores stringData base64-encoded in data (k8s.io/kubernetes pkg/apis/core/v1 conversion of Secret)",
	}, true
}

// association finds each live kapp.k14s.io/association label other than the one kapp gives the
// resource (v1.<md5 of its key>, kappconv.Association): kapp rewrites it on its next deploy,
// once, as kapp's engine in generate and check sees, at the object's labels and at every labels
// map its ownership label rules write into (prepared, the manifest as kapp prepares it: a
// Deployment's pod template). One finding each, so that explain, generate and check classify
// them alike (a renamed namespace changes the key, and every one of them). The field diff hides
// kapp's labels, so they are added here. A versioned resource's name, and so its key, is kapp's
// to choose: not judged.
func association(desired, prepared, live *unstructured.Unstructured) []Finding {
	got, ok := live.GetLabels()[kappconv.AssociationLabel]
	if _, versioned := desired.GetAnnotations()[kappconv.Versioned]; !ok || versioned {
		return nil // no label: kapp never deployed it (adoption adds its labels)
	}
	want := kappconv.Association(kappconv.ResourceKey(desired.GetNamespace(), desired.GroupVersionKind().Group, desired.GetKind(), desired.GetName()))
	var out []Finding
	add := func(fields []string, got string) {
		out = append(out, Finding{
			Path:    fielddiff.FromFields(fields),
			Change:  fielddiff.Modified,
			Class:   Adoption,
			Owner:   "kapp",
			Desired: want,
			Live:    got,
			Evidence: "kapp labels each resource it applies " + kappconv.AssociationLabel + ": v1.<md5 of namespace/group/kind/name> (" + want +
				" here, kapp v" + kappconv.Kapp + " resources/association_label.go); the live object holds another resource's, so kapp rewrites it once, on its next deploy",
		})
	}
	if got != want {
		add([]string{"metadata", "labels", kappconv.AssociationLabel}, got)
	}
	if prepared != nil {
		labelMaps(prepared.Object, nil, func(at []string) {
			if len(at) == 2 && at[0] == "metadata" {
				return // the object's own, above
			}
			if v, ok, _ := unstructured.NestedString(live.Object, append(slices.Clone(at), kappconv.AssociationLabel)...); ok && v != want {
				add(append(slices.Clone(at), kappconv.AssociationLabel), v)
			}
		})
	}
	return out
}

// identity finds a live kapp.k14s.io/identity annotation that names another resource than the
// live object (a namespace renamed by a restore or a copy, the annotation left as kapp wrote it).
// kapp strips a valid one from what it lists; it marks an object with another resource's as one
// it did not create (transient, never deleted) and keeps the annotation, which its diff then shows
// removed, and its update writes the annotation for the resource, once (kapp
// resources/identified_resources_list.go, identity_annotation.go). The field diff hides kapp's
// annotations, so this is added here; the finding's desired value is what kapp writes. A
// versioned resource's name, and so its key, is kapp's to choose: not judged.
func identity(desired, live *unstructured.Unstructured) (Finding, bool) {
	got, ok := live.GetAnnotations()[kappconv.IdentityAnnotation]
	if _, versioned := desired.GetAnnotations()[kappconv.Versioned]; !ok || versioned {
		return Finding{}, false
	}
	liveKey := kappconv.ResourceKey(live.GetNamespace(), live.GroupVersionKind().Group, live.GetKind(), live.GetName())
	if kappconv.CreatedByKapp(got, liveKey) {
		return Finding{}, false
	}
	want := "v1;" + kappconv.ResourceKey(desired.GetNamespace(), desired.GroupVersionKind().Group, desired.GetKind(), desired.GetName()) + ";" + desired.GetAPIVersion()
	return Finding{
		Path:    fielddiff.FromFields([]string{"metadata", "annotations", kappconv.IdentityAnnotation}),
		Change:  fielddiff.Modified,
		Class:   Adoption,
		Owner:   "kapp",
		Desired: want,
		Live:    got,
		Evidence: "kapp annotates each resource it applies " + kappconv.IdentityAnnotation + ": v1;<namespace/group/kind/name>;<apiVersion> (" + want + " here) and strips it from what it lists (kapp v" + kappconv.Kapp +
			" resources/identity_annotation.go); the live object's names another resource, so kapp lists the object as one it did not create, shows the annotation removed, and rewrites it once, on its next deploy",
	}, true
}

// labelMaps calls found with the path of every "labels" map of obj holding kapp's association
// label, through maps only (kapp's ownership label rules name map keys), in key order.
func labelMaps(obj map[string]any, at []string, found func([]string)) {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		m, ok := obj[k].(map[string]any)
		if !ok {
			continue
		}
		here := append(slices.Clone(at), k)
		if _, ok := m[kappconv.AssociationLabel]; ok && k == "labels" {
			found(here)
			continue
		}
		labelMaps(m, here, found)
	}
}
