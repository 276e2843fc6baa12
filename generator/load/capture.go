package load

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/rebasegen/rebasegen/internal/escape"
	"github.com/rebasegen/rebasegen/internal/generated"
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

// CaptureDirIs is what errors and hints call a directory IsCaptureDir recognises.
const CaptureDirIs = "a directory rebasegen capture wrote (it holds " + ServerVersionFile + ")"

// IsCaptureDir reports whether path is a directory rebasegen capture wrote: one holding
// server-version.json.
func IsCaptureDir(path string) bool {
	st, err := os.Stat(filepath.Join(path, ServerVersionFile))
	return err == nil && !st.IsDir()
}

// CapturedLive returns the --live files rebasegen capture wrote (its header) among those holding
// an object without metadata.managedFields: the server returned them so, and capture cannot help.
// One named desired.yaml is capture's desired.yaml, an error: capture writes under that name what
// kapp last applied, recovered from each live object's kapp.k14s.io/original, the manifests, not
// the live objects (its header is live.yaml's, the name tells them apart). Judged as the live
// objects it showed no default and no controller's field: generate wrote 1 rule of the 13 the
// live objects needed and verified it (newcomer16 N16-3). Only files with an object lacking
// managedFields are read again: desired.yaml's objects carry none.
func CapturedLive(r *Reader, live []Doc) (map[string]bool, error) {
	var files []string
	unmanaged := map[string]bool{}
	for _, d := range live {
		f := d.Source.File
		if _, seen := unmanaged[f]; !seen {
			files = append(files, f)
		}
		unmanaged[f] = unmanaged[f] || !d.ManagedFields
	}
	var captured map[string]bool
	for _, f := range files {
		if !unmanaged[f] {
			continue
		}
		data, err := r.ReadFile(f)
		if err != nil || generated.Captured(data) == generated.None {
			continue // an object given in memory, or a file of the user's
		}
		if filepath.Base(f) == CaptureDesired {
			return nil, capturedDesired(f)
		}
		if captured == nil {
			captured = map[string]bool{}
		}
		captured[f] = true
	}
	return captured, nil
}

// capturedDesired refuses capture's desired.yaml f given as --live, naming what to pass instead.
func capturedDesired(f string) error {
	dir := filepath.Dir(f)
	instead := "the " + CaptureLive + " capture wrote beside it, or the capture's directory"
	if IsCaptureDir(dir) {
		instead = fmt.Sprintf("the capture's directory (--live %s) or its %s (--live %s)", escape.Text(dir), CaptureLive, escape.Text(filepath.Join(dir, CaptureLive)))
	}
	return fmt.Errorf("--live %s: rebasegen capture's %s (its header says Captured by rebasegen): what kapp last applied, recovered from the live objects, not the live objects: pass %s; as --desired it is the manifests kapp last applied",
		escape.Text(f), CaptureDesired, instead)
}
