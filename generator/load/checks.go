package load

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/rebasegen/rebasegen/internal/kappconv"
	"github.com/rebasegen/rebasegen/rulesets"
)

// Checks on the inputs as loaded, before they are paired: a file given to the wrong flag is named
// with the flag it belongs to.

// Swapped is an error when the desired objects carry what only the API server writes and the
// live objects none of it: -d and -l given each other's files.
func Swapped(desired, live []Doc) error {
	i := slices.IndexFunc(desired, func(d Doc) bool { return d.ManagedFields || d.FromServer })
	if i < 0 || len(live) == 0 || slices.ContainsFunc(live, func(d Doc) bool { return d.ManagedFields || d.FromServer }) {
		return nil
	}
	return fmt.Errorf("are --desired and --live swapped? %s carries metadata.uid, resourceVersion or managedFields, which only the API server writes, and no live object does\n(--desired takes the manifests, --live what kubectl get -o yaml --show-managed-fields or rebasegen capture read from the cluster)", desired[i].Source)
}

// ManifestsAsLive is an error when a live object is namespaced (clusterScoped says which kinds
// are not) but has no namespace and carries nothing the API server writes (uid, resourceVersion,
// managedFields): every object a cluster returns has them, so --live was given manifests (the
// mirror of Swapped).
func ManifestsAsLive(live []Doc, clusterScoped func(schema.GroupKind) bool) error {
	for _, d := range live {
		if d.APIVersion == kappconv.ConfigAPIVersion && d.Kind == kappconv.ConfigKind && !d.FromServer {
			return fmt.Errorf("--live %s: a kapp Config, not an object read from the cluster: rules go to --rules (check, lint)", d.Source)
		}
		if d.Namespace == "" && !d.FromServer && !d.ManagedFields && !clusterScoped(d.GroupKind()) {
			return fmt.Errorf("--live %s: %s %s has no metadata.namespace, uid, resourceVersion or managedFields, which every namespaced object the API server returns has: is it a manifest?\n(--live takes what kubectl get -o yaml --show-managed-fields or rebasegen capture read from the cluster, --desired the manifests)", d.Source, d.Kind, d.Name)
		}
	}
	return nil
}

// FlagPaths are the paths one flag names.
type FlagPaths struct {
	Flag  string // --desired
	Paths []string
}

// StdinOnce refuses "-" (stdin) given to more than one flag: one stdin cannot be two inputs
// (-d - -l - made live empty), and empty stdin, whichever flag reads it: a pipeline whose first
// command failed or wrote nothing, which read as an empty ruleset, no rules or no values would
// pass unnoticed.
func StdinOnce(r *Reader, flags []FlagPaths) error {
	var readers []string
	for _, f := range flags {
		for _, p := range f.Paths {
			if p == "-" {
				readers = append(readers, f.Flag+" -")
			}
		}
	}
	switch {
	case len(readers) > 1:
		return fmt.Errorf("%s: - (stdin) can be read only once", strings.Join(readers, ", "))
	case len(readers) == 1:
		data, err := r.ReadFile("-") // read once: every later read gets the same data
		if err != nil {
			return fmt.Errorf("%s: %w", readers[0], err)
		}
		if len(bytes.TrimSpace(data)) == 0 {
			return fmt.Errorf("%s (stdin): empty input", readers[0])
		}
	}
	return nil
}

// Rulesets reads the built-in rulesets, then the user's files in order.
func Rulesets(r *Reader, files []string) (*rulesets.Ruleset, error) {
	rs, err := rulesets.Load()
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		data, err := r.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("reading ruleset: %w", err)
		}
		if data, err = ToJSON(f, data); err != nil {
			return nil, fmt.Errorf("ruleset %w", err)
		}
		var head struct{ APIVersion, Kind string }
		if json.Unmarshal(data, &head) == nil && head.APIVersion == kappconv.ConfigAPIVersion && head.Kind == kappconv.ConfigKind {
			return nil, fmt.Errorf("--ruleset %s: a kapp Config: rules kapp reads go to --rules (check, lint); --ruleset takes rebasegen's rulesets (the shape of rulesets/*.yaml)", f)
		}
		if err := rs.Add(f, data); err != nil {
			return nil, err
		}
	}
	return rs, nil
}
