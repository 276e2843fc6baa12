package pair

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/rulesets"
)

var crdGK = schema.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}

// scope knows which kinds are cluster-scoped: built-in ones from the rulesets, custom ones from
// CRDs among the inputs, and any kind a live object shows without a namespace.
type scope map[schema.GroupKind]bool // true: cluster-scoped

func newScope(rs *rulesets.Ruleset, crds []load.Object) scope {
	s := scope{}
	if rs != nil {
		for _, k := range rs.ClusterScoped {
			s[schema.GroupKind{Group: k.Group, Kind: k.Kind}] = true
		}
	}
	for _, o := range crds {
		group, _, _ := unstructured.NestedString(o.Object, "spec", "group")
		kind, _, _ := unstructured.NestedString(o.Object, "spec", "names", "kind")
		sc, _, _ := unstructured.NestedString(o.Object, "spec", "scope")
		s[schema.GroupKind{Group: group, Kind: kind}] = sc == "Cluster"
	}
	return s
}

func (s scope) namespaced(group, kind string) bool {
	return !s[schema.GroupKind{Group: group, Kind: kind}]
}

func (s scope) identity(d load.Doc, defaultNS string) Identity {
	id := Identity{Group: groupOf(d.APIVersion), Kind: d.Kind, Namespace: d.Namespace, Name: d.Name}
	if !s.namespaced(id.Group, id.Kind) {
		id.Namespace = ""
	} else if id.Namespace == "" {
		id.Namespace = defaultNS
	}
	return id
}
