package pair

// Inputs given to the wrong side: the desired objects are manifests, the live objects what the
// API server returns, and each carries what tells them apart.

import (
	"fmt"
	"slices"

	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/rulesets"
)

// Swapped is an error when the desired objects carry what only the API server writes and the
// live objects none of it: -d and -l given each other's files.
func Swapped(desired, live []load.Doc) error {
	i := slices.IndexFunc(desired, func(d load.Doc) bool { return d.ManagedFields || d.FromServer })
	if i < 0 || len(live) == 0 || slices.ContainsFunc(live, func(d load.Doc) bool { return d.ManagedFields || d.FromServer }) {
		return nil
	}
	return fmt.Errorf("are --desired and --live swapped? %s carries metadata.uid, resourceVersion or managedFields, which only the API server writes, and no live object does\n(--desired takes the manifests, --live what kubectl get -o yaml --show-managed-fields or rebasegen capture read from the cluster)", desired[i].Source)
}

// ManifestsAsLive is an error when a live object is namespaced but has no namespace and carries
// nothing the API server writes (uid, resourceVersion, managedFields): every object a cluster
// returns has them, so --live was given manifests (the mirror of Swapped).
func ManifestsAsLive(live []load.Doc, rs *rulesets.Ruleset, crds []load.Doc) error {
	scope, err := NewScope(rs, crds)
	if err != nil {
		return err
	}
	for _, d := range live {
		if d.Namespace == "" && !d.FromServer && !d.ManagedFields && !scope.ClusterScoped(d.GroupKind()) {
			return fmt.Errorf("--live %s: %s %s has no metadata.namespace, uid, resourceVersion or managedFields, which every namespaced object the API server returns has: is it a manifest?\n(--live takes what kubectl get -o yaml --show-managed-fields or rebasegen capture read from the cluster, --desired the manifests)", d.Source, d.Kind, d.Name)
		}
	}
	return nil
}
