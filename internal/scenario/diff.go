package scenario

import (
	"sync"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/internal/kappprep"
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

// kappDefaults is kapp's built-in Config, read once (the fixtures hold no kapp Config of their own).
var kappDefaults = sync.OnceValues(func() (ctlconf.Conf, error) {
	_, conf, err := ctlconf.NewConfFromResourcesWithDefaults(nil)
	return conf, err
})

// fieldPaths returns the paths where the desired object, as kapp deploy prepares it (its labels
// written with kapp's own code, the live object's app label), differs from live: the fields the
// generator reports for the pair. Noise is left out.
func fieldPaths(desired, live *unstructured.Unstructured) ([]fielddiff.Path, error) {
	conf, err := kappDefaults()
	if err != nil {
		return nil, err
	}
	sent, err := kappprep.Object(conf, desired, kappprep.AppLabel(live))
	if err != nil {
		return nil, err
	}
	return diffPaths(sent, live, false)
}
