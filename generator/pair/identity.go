// Package pair matches desired objects with live objects by kapp's identity: API group, kind,
// namespace and name (not apiVersion: HPA v2 desired pairs with HPA v1 live).
package pair

import (
	"fmt"
	"strconv"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// Identity is what kapp uses to tell two objects are the same resource.
type Identity struct {
	Group, Kind, Namespace, Name string
}

// String is "apps/Deployment default/web"; the core group is written "core", cluster-scoped
// objects have no namespace part: "rbac.authorization.k8s.io/ClusterRole view".
func (id Identity) String() string {
	g := id.Group
	if g == "" {
		g = "core"
	}
	if id.Namespace == "" {
		return fmt.Sprintf("%s/%s %s", g, id.Kind, id.Name)
	}
	return fmt.Sprintf("%s/%s %s/%s", g, id.Kind, id.Namespace, id.Name)
}

// Less orders identities by kind, then group, namespace and name.
func (id Identity) Less(o Identity) bool {
	a := [4]string{id.Kind, id.Group, id.Namespace, id.Name}
	b := [4]string{o.Kind, o.Group, o.Namespace, o.Name}
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

func groupOf(apiVersion string) string {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return apiVersion
	}
	return gv.Group
}

// baseName is kapp's reading of a versioned name, NAME-ver-N (kappconv.SplitVersionedName), and
// its version; -1 when the name has none or kapp could not read it as a number (kapp panics on
// such a name: it stays a plain name here).
func baseName(name string) (string, int) {
	base, ver := kappconv.SplitVersionedName(name)
	if n, err := strconv.Atoi(ver); err == nil {
		return base, n
	}
	return name, -1
}
