package argocd

// The schema Argo CD types an object with before it applies an ignore's managedFieldsManagers:
// its controller hands StateDiff the cluster's GVK parser (controller/state.go, built from the
// API server's /openapi/v2 by gitops-engine's kube.KubectlCmd), and preDiffNormalize resolves the
// object's type with it (gitops-engine scheme.ResolveParseableType): a built-in kind by the name
// the parser gives its group, version and kind, in gitops-engine's own static schema; any other
// kind in the parser. Without a parser the type is deduced (every list atomic), and an entry's
// managed fields inside a keyed list (a container's image) intersect with no change.

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/argoproj/argo-cd/gitops-engine/v3/pkg/utils/kube/scheme"
	argodiff "github.com/argoproj/argo-cd/v3/util/argo/diff"
	openapiv2 "github.com/google/gnostic-models/openapiv2"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	crdopenapiv2 "k8s.io/apiextensions-apiserver/pkg/controller/openapi/v2"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/kube-openapi/pkg/util/proto"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// gvkExtension is the extension of an OpenAPI definition naming the kinds it is the schema of.
const gvkExtension = "x-kubernetes-group-version-kind"

// objectMetaName is the definition a custom resource's metadata refers to, as the API server
// publishes a CRD's schema (apiextensions-apiserver pkg/controller/openapi/builder).
const objectMetaName = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"

// builtinDefinitions are the /openapi/v2 definitions of the built-in kinds, by name: each named as
// the API server names its Go type (io.k8s.api.apps.v1.Deployment) with the kinds it serves.
// Argo CD takes only the name from the cluster's parser and the type from its static schema, so
// only the kinds that schema holds are listed, and their own schema is an open object; the
// metadata a custom resource refers to is ObjectMeta's, as the API server serves it.
var builtinDefinitions = sync.OnceValue(func() map[string]any {
	defs := map[string]any{}
	static := scheme.StaticParser()
	kinds := map[string][]any{}
	for gvk, t := range clientgoscheme.Scheme.AllKnownTypes() {
		if gvk.Version == runtime.APIVersionInternal {
			continue
		}
		name := openAPIName(t)
		if !static.Type(name).IsValid() {
			continue // a list, or an options type: Argo CD never types one
		}
		kinds[name] = append(kinds[name], map[string]any{"group": gvk.Group, "version": gvk.Version, "kind": gvk.Kind})
	}
	for name, gvks := range kinds {
		slices.SortFunc(gvks, func(a, b any) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
		defs[name] = map[string]any{"type": "object", gvkExtension: gvks}
	}
	for name, def := range objectMetaDefinitions {
		defs[name] = def
	}
	return defs
})

// openAPIName is the name the API server's /openapi/v2 gives the Go type t: its package path
// with the domain reversed (k8s.io/api/apps/v1 -> io.k8s.api.apps.v1), then its name.
func openAPIName(t reflect.Type) string {
	domain, rest, _ := strings.Cut(t.PkgPath(), "/")
	parts := strings.Split(domain, ".")
	slices.Reverse(parts)
	return strings.Join(parts, ".") + "." + strings.ReplaceAll(rest, "/", ".") + "." + t.Name()
}

// objectMetaDefinitions are ObjectMeta and the types it holds as the API server's /openapi/v2
// defines them (k8s.io/kubernetes api/openapi-spec/swagger.json), with what the structured merge
// types read of them: the fields, list types and keys, map types. TestObjectMetaAsStatic holds
// them to gitops-engine's static schema of ObjectMeta.
var objectMetaDefinitions = map[string]any{
	objectMetaName: map[string]any{"type": "object", "properties": map[string]any{
		"annotations":                map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}},
		"creationTimestamp":          ref("io.k8s.apimachinery.pkg.apis.meta.v1.Time"),
		"deletionGracePeriodSeconds": map[string]any{"type": "integer", "format": "int64"},
		"deletionTimestamp":          ref("io.k8s.apimachinery.pkg.apis.meta.v1.Time"),
		"finalizers":                 map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "x-kubernetes-list-type": "set"},
		"generateName":               map[string]any{"type": "string"},
		"generation":                 map[string]any{"type": "integer", "format": "int64"},
		"labels":                     map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}},
		"managedFields":              map[string]any{"type": "array", "items": ref("io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry"), "x-kubernetes-list-type": "atomic"},
		"name":                       map[string]any{"type": "string"},
		"namespace":                  map[string]any{"type": "string"},
		"ownerReferences": map[string]any{"type": "array", "items": ref("io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference"),
			"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": []any{"uid"}},
		"resourceVersion": map[string]any{"type": "string"},
		"selfLink":        map[string]any{"type": "string"},
		"uid":             map[string]any{"type": "string"},
	}},
	"io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry": map[string]any{"type": "object", "properties": map[string]any{
		"apiVersion":  map[string]any{"type": "string"},
		"fieldsType":  map[string]any{"type": "string"},
		"fieldsV1":    ref("io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1"),
		"manager":     map[string]any{"type": "string"},
		"operation":   map[string]any{"type": "string"},
		"subresource": map[string]any{"type": "string"},
		"time":        ref("io.k8s.apimachinery.pkg.apis.meta.v1.Time"),
	}},
	"io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference": map[string]any{"type": "object", "x-kubernetes-map-type": "atomic", "properties": map[string]any{
		"apiVersion":         map[string]any{"type": "string"},
		"blockOwnerDeletion": map[string]any{"type": "boolean"},
		"controller":         map[string]any{"type": "boolean"},
		"kind":               map[string]any{"type": "string"},
		"name":               map[string]any{"type": "string"},
		"uid":                map[string]any{"type": "string"},
	}},
	"io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1": map[string]any{"type": "object"},
	"io.k8s.apimachinery.pkg.apis.meta.v1.Time":     map[string]any{"type": "string", "format": "date-time"},
}

func ref(name string) map[string]any { return map[string]any{"$ref": "#/definitions/" + name} }

// builtinParser is the parser of a cluster serving the built-in kinds only.
var builtinParser = sync.OnceValues(func() (*managedfields.GvkParser, error) {
	doc, err := schemaDoc(nil)
	if err != nil {
		return nil, err
	}
	return parseSchema(doc)
})

// parserFor is the parser of a cluster serving the built-in kinds and the CRDs among crds, each
// version with a schema as the API server publishes it in /openapi/v2, and the document it is
// parsed from (nil for the built-in kinds' only).
func parserFor(crds []load.Doc) (*managedfields.GvkParser, []byte, error) {
	if len(crds) == 0 {
		p, err := builtinParser()
		return p, nil, err
	}
	schemas, err := classify.StructuralSchemas(crds)
	if err != nil {
		return nil, nil, err
	}
	doc, err := schemaDoc(schemas)
	if err != nil {
		return nil, nil, err
	}
	p, err := parseSchema(doc)
	return p, doc, err
}

// schemaDoc is the /openapi/v2 document of the built-in kinds and crds.
func schemaDoc(crds map[schema.GroupVersionKind]*structuralschema.Structural) ([]byte, error) {
	defs := map[string]any{}
	for name, def := range builtinDefinitions() {
		defs[name] = def
	}
	for gvk, s := range crds {
		def, err := crdDefinition(gvk, s)
		if err != nil {
			return nil, err
		}
		defs[crdModelName(gvk)] = def
	}
	return json.Marshal(map[string]any{"swagger": "2.0", "info": map[string]any{"title": "Kubernetes", "version": "rebasegen"}, "paths": map[string]any{}, "definitions": defs})
}

// parseSchema is the parser of an /openapi/v2 document.
func parseSchema(doc []byte) (*managedfields.GvkParser, error) {
	d, err := openapiv2.ParseDocument(doc)
	if err != nil {
		return nil, fmt.Errorf("the schema Argo CD types objects with: %w", err)
	}
	models, err := proto.NewOpenAPIData(d)
	if err != nil {
		return nil, fmt.Errorf("the schema Argo CD types objects with: %w", err)
	}
	p, err := managedfields.NewGVKParser(models, false)
	if err != nil {
		return nil, fmt.Errorf("the schema Argo CD types objects with: %w", err)
	}
	return p, nil
}

// crdModelName is the definition name the API server gives a CRD's kind (builder's
// gvkToModelName): the group's domain reversed, the version, the kind.
func crdModelName(gvk schema.GroupVersionKind) string {
	parts := strings.Split(gvk.Group, ".")
	slices.Reverse(parts)
	return strings.Join(parts, ".") + "." + gvk.Version + "." + gvk.Kind
}

// crdDefinition is a CRD version's definition in /openapi/v2, as the API server builds it
// (builder.buildKubeNative with V2): a schema preserving unknown fields at its root is an open
// object; any other is converted to OpenAPI v2, with ObjectMeta's metadata and TypeMeta's
// apiVersion and kind, at the root and in every embedded resource.
func crdDefinition(gvk schema.GroupVersionKind, s *structuralschema.Structural) (any, error) {
	var def *spec.Schema
	if s.XPreserveUnknownFields {
		def = &spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"object"}}}
	} else {
		def = crdopenapiv2.ToStructuralOpenAPIV2(s).ToKubeOpenAPI()
		def.SetProperty("metadata", *spec.RefSchema("#/definitions/" + objectMetaName))
		addTypeMeta(def)
		addEmbedded(def)
	}
	b, err := json.Marshal(def)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	out[gvkExtension] = []any{map[string]any{"group": gvk.Group, "version": gvk.Version, "kind": gvk.Kind}}
	return out, nil
}

func addTypeMeta(s *spec.Schema) {
	s.SetProperty("apiVersion", *spec.StringProperty())
	s.SetProperty("kind", *spec.StringProperty())
}

// addEmbedded gives every embedded resource below s (x-kubernetes-embedded-resource) TypeMeta
// and ObjectMeta, but one preserving unknown fields (builder's addEmbeddedProperties with V2).
func addEmbedded(s *spec.Schema) {
	if s == nil {
		return
	}
	for k := range s.Properties {
		v := s.Properties[k]
		addEmbedded(&v)
		s.Properties[k] = v
	}
	if s.Items != nil {
		addEmbedded(s.Items.Schema)
	}
	if s.AdditionalProperties != nil {
		addEmbedded(s.AdditionalProperties.Schema)
	}
	if ok, _ := s.Extensions.GetBool("x-kubernetes-preserve-unknown-fields"); ok {
		return
	}
	if ok, _ := s.Extensions.GetBool("x-kubernetes-embedded-resource"); ok {
		addTypeMeta(s)
		s.SetProperty("metadata", *spec.RefSchema("#/definitions/" + objectMetaName))
	}
}

// managersUnjudged is an error when an entry of s with managedFieldsManagers applies to desired
// and the parser knows no schema of its kind: Argo CD would type it with the cluster's schema,
// which rebasegen does not have, so what the entry hides cannot be judged.
func (s Settings) managersUnjudged(desired *unstructured.Unstructured, p *managedfields.GvkParser) error {
	gvk := desired.GroupVersionKind()
	ok, ig := argodiff.NewIgnoreDiffConfig(s.Ignores, s.Overrides).HasIgnoreDifference(gvk.Group, gvk.Kind, desired.GetName(), desired.GetNamespace())
	if !ok || len(ig.ManagedFieldsManagers) == 0 || scheme.ResolveParseableType(gvk, p) != nil {
		return nil
	}
	where := ""
	for _, e := range s.entries() {
		if len(e.ManagedFieldsManagers) > 0 && e.at != (verdict.RuleAt{}) {
			where = e.at.String() + ": "
			break
		}
	}
	return fmt.Errorf("%smanagedFieldsManagers %s on %s %s/%s: Argo CD types the object with the cluster's schema of %s, which rebasegen does not have (a custom resource: give its CustomResourceDefinition with --crd), so it cannot judge what the entry hides",
		where, strings.Join(ig.ManagedFieldsManagers, ", "), desired.GetAPIVersion()+" "+gvk.Kind, desired.GetNamespace(), desired.GetName(), desired.GetAPIVersion()+" "+gvk.Kind)
}

// withSchemas is s typing objects with the schemas of the built-in kinds and of the CRDs among
// rep's inputs, unless it already has them.
func (s Settings) withSchemas(rep *classify.Report) (Settings, error) {
	if s.gvks != nil {
		return s, nil
	}
	p, doc, err := parserFor(rep.CRDs)
	if err != nil {
		return Settings{}, err
	}
	s.gvks, s.schema = p, doc
	return s, nil
}

// parser is the parser s types objects with: the built-in kinds' when none was given.
func (s Settings) parser() (*managedfields.GvkParser, error) {
	if s.gvks != nil {
		return s.gvks, nil
	}
	return builtinParser()
}
