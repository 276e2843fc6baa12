package classify

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// versionName: p is the name of a versioned resource whose live object is one of its versions,
// NAME-ver-N. kapp names each version itself (diff/change_set_with_versioned_rs.go
// assignNewNames) and pairs the manifest with the newest version by its base name: the name is
// kapp's, never a change.
func versionName(desired, live *unstructured.Unstructured, p fielddiff.Path) bool {
	if p.String() != "metadata.name" {
		return false
	}
	if _, versioned := desired.GetAnnotations()[kappconv.Versioned]; !versioned {
		return false
	}
	base, ver := kappconv.SplitVersionedName(live.GetName())
	return ver != "" && base == desired.GetName()
}
