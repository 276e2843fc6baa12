// Package crddoc writes the CustomResourceDefinition documents of the corpora and tests that need
// a custom resource with a structural schema: one place for the parts every such CRD repeats.
package crddoc

import (
	"fmt"
	"strings"
)

// Namespaced is the YAML document of a namespaced CRD of kind in group, its plural the lower-case
// kind with an s, with one version, v1, served and stored, whose objects' spec has the schema
// spec (YAML, written from column 0).
func Namespaced(group, kind, spec string) string {
	singular := strings.ToLower(kind)
	plural := singular + "s"
	return fmt.Sprintf(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: %s.%s}
spec:
  group: %s
  names: {kind: %s, plural: %s, singular: %s, listKind: %sList}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
%s`, plural, group, group, kind, plural, singular, kind, indent(spec, "            "))
}

// KeyedByName is the schema of a list of objects keyed by name (x-kubernetes-list-type: map), a
// YAML flow mapping: each item has a required string name and the properties props (a flow
// mapping's entries, "image: {type: string}").
func KeyedByName(props string) string {
	return "{type: array, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [name], items: {type: object, required: [name], properties: {name: {type: string}, " + props + "}}}"
}

func indent(s, prefix string) string {
	lines := strings.SplitAfter(strings.TrimSuffix(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "") + "\n"
}
