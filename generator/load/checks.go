package load

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/rebasegen/rebasegen/internal/escape"
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

// GivenTwice is an error when one file or directory is given to both --desired and --live (a
// mistyped -l desired.yaml): the manifests compared with themselves show no difference, and every
// verdict on them would be void.
func GivenTwice(desired, live []string) error {
	for _, l := range live {
		li, err := os.Stat(l)
		if l == "-" || err != nil {
			continue
		}
		for _, d := range desired {
			if di, err := os.Stat(d); d != "-" && err == nil && os.SameFile(di, li) {
				return fmt.Errorf("--live %s: also given as --desired %s: --live takes what kubectl get -o yaml --show-managed-fields or rebasegen capture read from the cluster, --desired the manifests", escape.Text(l), escape.Text(d))
			}
		}
	}
	return nil
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

// LiveAsDesired is an error when --desired holds objects read from the cluster after kapp
// deployed them (the capture given to both flags, or a copy of it): they carry what only the API
// server writes (uid, resourceVersion, managedFields) and what only kapp writes on deploy (its
// kapp.k14s.io/original annotation or kapp.k14s.io/association label). Read as manifests, every
// field of kapp's bookkeeping is a difference kapp would make, and generate reported each as a
// residual ghost diff. (Objects from the API server without kapp's marks may be a manifest
// exported with kubectl get: they are not refused.)
func LiveAsDesired(desired []Doc) error {
	n, first := 0, -1
	for i, d := range desired {
		if !d.ManagedFields && !d.FromServer {
			continue
		}
		o, err := d.Object()
		if err != nil {
			return err
		}
		_, original := o.GetAnnotations()[kappconv.Original]
		_, associated := o.GetLabels()[kappconv.AssociationLabel]
		if original || associated {
			if n++; first < 0 {
				first = i
			}
		}
	}
	if n == 0 {
		return nil
	}
	d := desired[first]
	return fmt.Errorf("--desired %s: %s %s was read from the cluster after kapp deployed it, not written as a manifest: it carries metadata.uid, resourceVersion or managedFields (which only the API server writes) and kapp's %s annotation or %s label (which kapp writes on deploy); %d of %d desired objects do\n(--desired takes the manifests kapp deploys, --live what was read from the cluster; with a capture alone, leave --desired out: each live object's desired state is then recovered from its %s annotation)",
		d.Source, d.Kind, objectName(d), kappconv.Original, kappconv.AssociationLabel, n, len(desired), kappconv.Original)
}

// objectName is namespace/name, or name.
func objectName(d Doc) string {
	if d.Namespace == "" {
		return d.Name
	}
	return d.Namespace + "/" + d.Name
}
