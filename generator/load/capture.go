package load

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// Files of a directory rebasegen capture writes (--output-directory), besides server-version.json.
const (
	CaptureLive    = "live.yaml"
	CaptureCRDs    = "crds.yaml"
	CaptureDesired = "desired.yaml" // capture's recovery of what kapp applied: never read as objects
)

// CaptureDirs reads a --live directory holding server-version.json as the directory rebasegen
// capture writes: its live.yaml is the live objects, its crds.yaml CRDs (read as --crd), and
// neither its desired.yaml (capture's recovery of what kapp applied, not live objects) nor
// server-version.json (read as the server's version) is an object file. Other paths are as given.
func CaptureDirs(live, crds []string) (liveOut, crdsOut []string, _ error) {
	crdsOut = slices.Clone(crds)
	for _, l := range live {
		st, err := os.Stat(l)
		if l == "-" || err != nil || !st.IsDir() {
			liveOut = append(liveOut, l)
			continue
		}
		if !IsCaptureDir(l) {
			liveOut = append(liveOut, l)
			continue
		}
		f := filepath.Join(l, CaptureLive)
		st, err = os.Stat(f)
		if err != nil {
			return nil, nil, fmt.Errorf("--live %s: a directory holding %s, as rebasegen capture writes it, without its %s: give --live the file of live objects (the server's version is read from the %s beside it)",
				l, ServerVersionFile, CaptureLive, ServerVersionFile)
		}
		// Found in a directory, not named: a pipe here would be opened as if named and wait
		// for a writer forever, so these files are held to what any file found is held to.
		if !st.Mode().IsRegular() {
			return nil, nil, fmt.Errorf("reading %s: %s", f, notAFile(st.Mode(), false))
		}
		liveOut = append(liveOut, f)
		if c := filepath.Join(l, CaptureCRDs); !slices.Contains(crds, c) {
			if st, err := os.Stat(c); err == nil {
				if !st.Mode().IsRegular() {
					return nil, nil, fmt.Errorf("reading %s: %s", c, notAFile(st.Mode(), false))
				}
				crdsOut = append(crdsOut, c)
			}
		}
	}
	return liveOut, crdsOut, nil
}

// IsCaptureDir reports whether path is a directory rebasegen capture wrote: one holding
// server-version.json.
func IsCaptureDir(path string) bool {
	st, err := os.Stat(filepath.Join(path, ServerVersionFile))
	return err == nil && !st.IsDir()
}
