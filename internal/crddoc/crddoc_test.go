package crddoc

import (
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

func TestNamespaced(t *testing.T) {
	doc := Namespaced("example.com", "Thing", "type: object\nproperties:\n  mode: {type: string, default: fast}\n")
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict([]byte(doc), &crd); err != nil {
		t.Fatalf("%v\n%s", err, doc)
	}
	v := crd.Spec.Versions
	if crd.Name != "things.example.com" || crd.Spec.Names.Plural != "things" || crd.Spec.Names.ListKind != "ThingList" || crd.Spec.Scope != apiextensionsv1.NamespaceScoped ||
		len(v) != 1 || v[0].Name != "v1" || !v[0].Served || !v[0].Storage {
		t.Fatalf("%+v", crd)
	}
	spec := v[0].Schema.OpenAPIV3Schema.Properties["spec"]
	if spec.Type != "object" || string(spec.Properties["mode"].Default.Raw) != `"fast"` {
		t.Errorf("spec schema %+v", spec)
	}
}

func TestKeyedByName(t *testing.T) {
	doc := Namespaced("example.com", "Thing", "type: object\nproperties:\n  parts: "+KeyedByName("image: {type: string}")+"\n")
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict([]byte(doc), &crd); err != nil {
		t.Fatalf("%v\n%s", err, doc)
	}
	parts := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties["parts"]
	item := parts.Items.Schema
	if parts.Type != "array" || parts.XListType == nil || *parts.XListType != "map" || len(parts.XListMapKeys) != 1 || parts.XListMapKeys[0] != "name" ||
		item.Type != "object" || len(item.Required) != 1 || item.Required[0] != "name" || item.Properties["name"].Type != "string" || item.Properties["image"].Type != "string" {
		t.Errorf("parts schema %+v, items %+v", parts, item)
	}
}
