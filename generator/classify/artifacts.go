package classify

import (
	"encoding/base64"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// emptyAnnotations finds the empty annotations map kapp leaves behind: when the live object's
// only annotations are kapp's own, kapp strips them when it reads the object but keeps
// `annotations: {}`, so under the live base every such resource shows `- annotations: {}`
// (measured with kapp v0.66.0). The field diff hides kapp's keys, so this is added here.
func emptyAnnotations(desired, live *unstructured.Unstructured) (Finding, bool) {
	if len(desired.GetAnnotations()) > 0 {
		return Finding{}, false
	}
	ann := live.GetAnnotations()
	if len(ann) == 0 {
		return Finding{}, false
	}
	for k := range ann {
		if !strings.HasPrefix(k, kappconv.Prefix) {
			return Finding{}, false
		}
	}
	return Finding{
		Path:     fielddiff.FromFields([]string{"metadata", "annotations"}),
		Change:   fielddiff.Added,
		Class:    KappArtifact,
		Owner:    "kapp",
		Live:     map[string]any{},
		KappView: true,
		Evidence: "kapp strips its own annotations from the live object and keeps an empty annotations map, " +
			"shown as removed whenever kapp diffs against the live object (kapp v" + kappconv.Kapp + ")",
	}, true
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
		s, _ := v.(string)
		moved = moved || data[k] == base64.StdEncoding.EncodeToString([]byte(s))
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

// association finds a live kapp.k14s.io/association label other than the one kapp gives the
// resource (v1.<md5 of its key>, kappconv.Association): kapp rewrites it on its next deploy,
// once, as kapp's engine in generate and check sees. The field diff hides kapp's labels, so this
// is added here. A versioned resource's name, and so its key, is kapp's to choose: not judged.
func association(desired, live *unstructured.Unstructured) (Finding, bool) {
	got, ok := live.GetLabels()[kappconv.AssociationLabel]
	if _, versioned := desired.GetAnnotations()[kappconv.Versioned]; !ok || versioned {
		return Finding{}, false // no label: kapp never deployed it (adoption adds its labels)
	}
	want := kappconv.Association(kappconv.ResourceKey(desired.GetNamespace(), desired.GroupVersionKind().Group, desired.GetKind(), desired.GetName()))
	if got == want {
		return Finding{}, false
	}
	return Finding{
		Path:    fielddiff.FromFields([]string{"metadata", "labels", kappconv.AssociationLabel}),
		Change:  fielddiff.Modified,
		Class:   Adoption,
		Owner:   "kapp",
		Desired: want,
		Live:    got,
		Evidence: "kapp labels each resource it applies " + kappconv.AssociationLabel + ": v1.<md5 of namespace/group/kind/name> (" + want +
			" here, kapp v" + kappconv.Kapp + " resources/association_label.go); the live object holds another resource's, so kapp rewrites it once, on its next deploy",
	}, true
}
