package pair

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/rulesets"
)

var crdGK = schema.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}

// Scope knows which kinds are cluster-scoped, by GroupKind: built-in ones from the rulesets,
// custom ones from the CRDs among the inputs (a CRD's spec.scope wins over the rulesets). Every
// other kind is namespaced. Pairing and lint both read scope through it.
type Scope map[schema.GroupKind]bool // true: cluster-scoped

// NewScope reads the cluster-scoped kinds of rs (nil: none) and the scope every CRD declares.
func NewScope(rs *rulesets.Ruleset, crds []load.Doc) (Scope, error) {
	s := Scope{}
	if rs != nil {
		for _, k := range rs.ClusterScoped {
			s[schema.GroupKind{Group: k.Group, Kind: k.Kind}] = true
		}
	}
	for _, d := range crds {
		o, err := d.Object()
		if err != nil {
			return nil, err
		}
		group, _, _ := unstructured.NestedString(o.Object, "spec", "group")
		kind, _, _ := unstructured.NestedString(o.Object, "spec", "names", "kind")
		sc, _, _ := unstructured.NestedString(o.Object, "spec", "scope")
		s[schema.GroupKind{Group: group, Kind: kind}] = sc == "Cluster"
	}
	return s, nil
}

// ClusterScoped reports whether objects of the group and kind have no namespace.
func (s Scope) ClusterScoped(gk schema.GroupKind) bool { return s[gk] }

// ClusterScopedKind reports whether a kind named without its group (kapp's
// kindNamespaceNameMatcher matches every group) is cluster-scoped: in some group the rulesets or
// CRDs know, and namespaced in none of those.
func (s Scope) ClusterScopedKind(kind string) bool {
	found := false
	for gk, cluster := range s {
		if gk.Kind == kind {
			if !cluster {
				return false
			}
			found = true
		}
	}
	return found
}

func (s Scope) namespaced(group, kind string) bool {
	return !s.ClusterScoped(schema.GroupKind{Group: group, Kind: kind})
}

func (s Scope) identity(d load.Doc, defaultNS string) Identity {
	id := Identity{Group: groupOf(d.APIVersion), Kind: d.Kind, Namespace: d.Namespace, Name: d.Name}
	if !s.namespaced(id.Group, id.Kind) {
		id.Namespace = ""
	} else if id.Namespace == "" {
		id.Namespace = defaultNS
	}
	return id
}
