package scenario

import (
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// diffPaths returns the paths where a and b differ, with the project's field diff (the same
// paths the generator reports); noise (status, server metadata, kapp's labels...) only when
// withNoise is set.
func diffPaths(a, b *unstructured.Unstructured, withNoise bool) ([]fielddiff.Path, error) {
	deltas, err := fielddiff.Diff(a, b)
	if err != nil {
		return nil, err
	}
	var out []fielddiff.Path
	for _, d := range deltas {
		if d.Noise == "" || withNoise {
			out = append(out, d.Path)
		}
	}
	return out, nil
}
