package generator

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/version"

	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/internal/kappconv"
	"github.com/rebasegen/rebasegen/rulesets"
)

// versionDefaults are the defaults of the server's minor version where they differ from the
// linked version's (rulesets/defaults); nil when the server runs the linked minor version or its
// version is unknown. A minor version without data is judged with the linked version's defaults,
// and warning says so, naming both.
func versionDefaults(sv *load.ServerVersion) (_ *rulesets.VersionDefaults, warning string, _ error) {
	linked := version.MustParseSemantic(kappconv.Kubernetes)
	if sv == nil || sameMinor(sv.Version, linked) {
		return nil, "", nil
	}
	all, err := rulesets.Versions()
	if err != nil {
		return nil, "", err
	}
	for i := range all {
		if v, err := version.ParseSemantic(all[i].Version); err == nil && sameMinor(v, sv.Version) {
			return &all[i], "", nil
		}
	}
	return nil, fmt.Sprintf("the live objects come from Kubernetes %s (%s), whose defaults rebasegen has no data for: judged with the defaults of k8s.io/kubernetes %s, which may differ", sv, sv.Source, kappconv.Kubernetes), nil
}

func sameMinor(a, b *version.Version) bool { return a.Major() == b.Major() && a.Minor() == b.Minor() }
