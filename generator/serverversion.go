package generator

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

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

// Files of a directory rebasegen capture writes (--output-directory), besides server-version.json.
const (
	captureLive = "live.yaml"
	captureCRDs = "crds.yaml"
)

// captureDirs reads a --live directory holding server-version.json as the directory rebasegen
// capture writes: its live.yaml is the live objects, its crds.yaml CRDs (read as --crd), and
// neither its desired.yaml (capture's recovery of what kapp applied, not live objects) nor
// server-version.json (read as the server's version) is an object file. Other paths are as given.
func captureDirs(live, crds []string) (liveOut, crdsOut []string, _ error) {
	crdsOut = slices.Clone(crds)
	for _, l := range live {
		st, err := os.Stat(l)
		if l == "-" || err != nil || !st.IsDir() {
			liveOut = append(liveOut, l)
			continue
		}
		if _, err := os.Stat(filepath.Join(l, load.ServerVersionFile)); err != nil {
			liveOut = append(liveOut, l)
			continue
		}
		f := filepath.Join(l, captureLive)
		if _, err := os.Stat(f); err != nil {
			return nil, nil, fmt.Errorf("--live %s: a directory holding %s, as rebasegen capture writes it, without its %s: give --live the file of live objects (the server's version is read from the %s beside it)",
				l, load.ServerVersionFile, captureLive, load.ServerVersionFile)
		}
		liveOut = append(liveOut, f)
		if c := filepath.Join(l, captureCRDs); !slices.Contains(crds, c) {
			if _, err := os.Stat(c); err == nil {
				crdsOut = append(crdsOut, c)
			}
		}
	}
	return liveOut, crdsOut, nil
}
