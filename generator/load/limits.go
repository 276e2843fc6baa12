package load

import (
	"fmt"
	"os"
)

// MaxFileSize bounds one input file; larger inputs are rejected before parsing.
const MaxFileSize int64 = 64 << 20

// MaxTotalSize bounds all inputs of a run together: their file sizes (TotalSize) and, per
// flag, the documents after alias expansion (Docs). Measured: 10,000 pairs are 38.9 MB of YAML
// and peak at 291 MB of heap, so 256 MiB of input stays within a few GB.
const MaxTotalSize int64 = 256 << 20

// MaxObjectSize bounds one Kubernetes object, as JSON. No cluster holds a larger one: etcd keeps
// at most 1.5 MiB per object and the API server takes requests of at most 3 MiB; the margin is
// for JSON of objects stored as protobuf. Hardening: rebasegen's work grows with an object's
// values, and explain of a ConfigMap of 1,000,000 keys (13 MB of YAML) took 93 s and 2 GB.
const MaxObjectSize = 4 << 20

// MaxDepth bounds how deeply maps and lists nest in one document. Hardening: the YAML and JSON
// parsers stop at 10,000 levels, but every later stage walks objects recursively (9,000 levels
// took seconds); no Kubernetes object comes near this.
const MaxDepth = 512

func tooDeep(v any, left int) bool {
	if left < 0 {
		return true
	}
	switch t := v.(type) {
	case map[string]any:
		for _, x := range t {
			if tooDeep(x, left-1) {
				return true
			}
		}
	case []any:
		for _, x := range t {
			if tooDeep(x, left-1) {
				return true
			}
		}
	}
	return false
}

// TotalSize refuses inputs (files and directories, as Docs reads them; "-" is bounded by
// MaxFileSize when read) whose sizes add up to more than MaxTotalSize, before any is read.
func TotalSize(paths ...string) error { return totalSize(MaxTotalSize, paths) }

func totalSize(limit int64, paths []string) error {
	var total int64
	for _, p := range paths {
		if p == "-" {
			continue
		}
		names, err := expand(p)
		if err != nil {
			continue // reading reports it, in order
		}
		for _, n := range names {
			if st, err := os.Stat(n); err == nil && st.Mode().IsRegular() {
				total += st.Size()
			}
		}
		if total > limit {
			return fmt.Errorf("reading %s: the inputs are larger than %d MiB in all", p, limit>>20)
		}
	}
	return nil
}
