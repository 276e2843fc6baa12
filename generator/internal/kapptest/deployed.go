package kapptest

import (
	"fmt"
	"strings"
	"testing"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	ctldiff "carvel.dev/kapp/pkg/kapp/diff"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/internal/kappconv"
	"github.com/rebasegen/rebasegen/internal/kappprep"
)

// Deployed is a live capture of manifests (YAML documents, namespaced kinds) as a first
// `kapp deploy` into ns leaves them on an API server without controllers, where no real cluster
// is at hand: each object as kapp v0.66.0 prepares it (its built-in Config: app and association
// labels, label scoping) and creates it (its identity annotation), defaulted by the API server's
// own defaulting and conversion code (k8s.io/kubernetes' scheme, as the server decodes and stores a create: Stored), then recorded
// as kapp records its last apply (ResourceWithHistory.RecordLastAppliedResource: the original and
// its diff's md5, which kapp must accept: checked), a versioned resource under kapp's NAME-ver-1
// and the references to it rewritten as kapp's first deploy writes them, with managedFields of one Update by kapp
// holding every field, as the server records kapp's create and update. It returns the live
// objects' YAML.
func Deployed(t testing.TB, ns, manifests string) string {
	t.Helper()
	_, conf, err := ctlconf.NewConfFromResourcesWithDefaults(nil)
	if err != nil {
		t.Fatal(err)
	}
	const app = "1795657522226205023"
	cf := ctldiff.NewChangeFactory(conf.RebaseMods(), conf.DiffAgainstLastAppliedFieldExclusionMods(), conf.DiffAgainstExistingFieldExclusionMods(), ctldiff.ChangeOpts{})
	var prepared []ctlres.Resource
	for _, doc := range strings.Split(manifests, "\n---\n") {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
			t.Fatal(err)
		}
		u := &unstructured.Unstructured{Object: m}
		u.SetNamespace(ns)
		applied, err := kappprep.Object(conf, u, app)
		if err != nil {
			t.Fatal(err)
		}
		prepared = append(prepared, ctlres.NewResourceUnstructured(*applied, ctlres.ResourceType{}))
	}
	// kapp's first deploy names each versioned resource NAME-ver-1 and writes that name into the
	// references its templateRules name, in place (diff/change_set_with_versioned_rs.go)
	if _, err := ctldiff.NewChangeSetWithVersionedRs(nil, prepared, conf.TemplateRules(), ctldiff.ChangeSetOpts{}, cf).Calculate(); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for i, res := range prepared {
		applied := &unstructured.Unstructured{Object: res.DeepCopy().UnstructuredObject()}
		created := ctlres.NewResourceUnstructured(*applied.DeepCopy(), ctlres.ResourceType{})
		if err := ctlres.NewIdentityAnnotation(created).AddMod().Apply(created); err != nil {
			t.Fatal(err)
		}
		gvk := applied.GroupVersionKind()
		live := &unstructured.Unstructured{Object: Stored(t, created.UnstructuredObject())}
		delete(live.Object, "status")
		live.SetAPIVersion(gvk.GroupVersion().String())
		live.SetKind(gvk.Kind)
		live.SetUID(types.UID(fmt.Sprintf("00000000-0000-4000-8000-%012d", i+1)))
		live.SetResourceVersion(fmt.Sprint(1000 + i))
		live.SetGeneration(1)
		unstructured.SetNestedField(live.Object, "2026-11-28T01:00:00Z", "metadata", "creationTimestamp")
		saved := ctlres.NewResourceUnstructured(*live, ctlres.ResourceType{})
		if err := ctlres.NewIdentityAnnotation(saved).RemoveMod().Apply(saved); err != nil { // as kapp's Create returns it
			t.Fatal(err)
		}
		withHistory := cf.NewResourceWithHistory(saved)
		change, err := withHistory.CalculateChange(ctlres.NewResourceUnstructured(*applied, ctlres.ResourceType{}))
		if err != nil {
			t.Fatal(err)
		}
		recorded, _, err := withHistory.RecordLastAppliedResource(change)
		if err != nil {
			t.Fatal(err)
		}
		if err := ctlres.NewIdentityAnnotation(recorded).AddMod().Apply(recorded); err != nil { // kapp's Update adds it back
			t.Fatal(err)
		}
		live = &unstructured.Unstructured{Object: recorded.UnstructuredObject()}
		recordedFields := live.DeepCopy() // managedFields never record what the server sets on every object
		for _, f := range []string{"uid", "resourceVersion", "generation", "creationTimestamp"} {
			unstructured.RemoveNestedField(recordedFields.Object, "metadata", f)
		}
		fields, err := fielddiff.Declared(recordedFields)
		if err != nil {
			t.Fatal(err)
		}
		fieldsJSON, err := fields.ToJSON()
		if err != nil {
			t.Fatal(err)
		}
		var fieldsV1 map[string]any
		if err := yaml.Unmarshal(fieldsJSON, &fieldsV1); err != nil {
			t.Fatal(err)
		}
		live.Object["metadata"].(map[string]any)["managedFields"] = []any{map[string]any{
			"apiVersion": live.GetAPIVersion(), "fieldsType": "FieldsV1", "fieldsV1": fieldsV1,
			"manager": "kapp", "operation": "Update", "time": "2026-11-28T01:00:00Z"}}
		listed := ctlres.NewResourceUnstructured(*live.DeepCopy(), ctlres.ResourceType{})
		if err := ctlres.NewIdentityAnnotation(listed).RemoveMod().Apply(listed); err != nil {
			t.Fatal(err)
		}
		if cf.NewResourceWithHistory(listed).LastAppliedResource() == nil {
			t.Fatalf("kapp does not accept the %s it recorded on %s", kappconv.Original, live.GetName())
		}
		bs, err := yaml.Marshal(live.Object)
		if err != nil {
			t.Fatal(err)
		}
		out.WriteString("---\n")
		out.Write(bs)
	}
	return out.String()
}
