package kappconv

import (
	"testing"

	ctlapp "carvel.dev/kapp/pkg/kapp/app"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Expected values read off kapp's diff/versioned_resource.go BaseNameAndVersion (strings.Split
// on "-ver-", all pieces but the last joined back): kapp's VersionedResource cannot be built
// outside its package, so the table is the oracle.
func TestSplitVersionedName(t *testing.T) {
	for _, tc := range []struct{ name, base, version string }{
		{"cm", "cm", ""},
		{"cm-ver-3", "cm", "3"},
		{"cm-ver-1-ver-2", "cm-ver-1", "2"},
		{"cm-ver-", "cm", ""},
		{"cm-ver-x", "cm", "x"},
		{"cm-version-1", "cm-version-1", ""},
	} {
		if base, version := SplitVersionedName(tc.name); base != tc.base || version != tc.version {
			t.Errorf("SplitVersionedName(%q) = %q, %q; kapp: %q, %q", tc.name, base, version, tc.base, tc.version)
		}
	}
}

func TestHistoryAnnotationsAreFresh(t *testing.T) {
	a := HistoryAnnotations()
	a[0] = "changed"
	if HistoryAnnotations()[0] != "kapp.k14s.io/original" {
		t.Fatal("HistoryAnnotations shares its slice with its callers")
	}
}

// kapp's own code is the oracle for its resource key, identity annotation and association label.
func TestKeysAsKappMakesThem(t *testing.T) {
	for _, obj := range []map[string]any{
		{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "web", "namespace": "ns"}},
		{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "ns"}},
		{"apiVersion": "example.com/v1beta1", "kind": "Widget", "metadata": map[string]any{"name": "w-ver-2", "namespace": "a"}},
	} {
		res := ctlres.NewResourceUnstructured(unstructured.Unstructured{Object: obj}, ctlres.ResourceType{})
		key := ResourceKey(res.Namespace(), res.APIGroup(), res.Kind(), res.Name())
		if want := ctlres.NewUniqueResourceKey(res).String(); key != want {
			t.Errorf("ResourceKey %q, kapp %q", key, want)
		}
		if got, want := Association(key), ctlres.NewAssociationLabel(res).Value(); got != want {
			t.Errorf("Association(%q) = %q, kapp %q", key, got, want)
		}
		for _, identity := range []string{"", "v1;" + key + ";" + res.APIVersion(), "v1;" + key, "v1;other/" + key + ";v1", "v2;" + key + ";v1", "v1;" + key + ";x;y"} {
			u := unstructured.Unstructured{Object: obj}
			u.SetAnnotations(map[string]string{IdentityAnnotation: identity})
			withAnn := ctlres.NewResourceUnstructured(*u.DeepCopy(), ctlres.ResourceType{})
			if got, want := CreatedByKapp(identity, key), ctlres.NewIdentityAnnotation(withAnn).Valid(); got != want {
				t.Errorf("CreatedByKapp(%q, %q) = %v, kapp %v", identity, key, got, want)
			}
		}
	}
}

// An app's ConfigMap is found by kapp's own label and suffix.
func TestAppConfigMapAsKappNamesIt(t *testing.T) {
	if IsAppLabel != ctlapp.KappIsAppLabelKey || AppSuffix != ctlapp.AppSuffix {
		t.Errorf("IsAppLabel %q, AppSuffix %q; kapp: %q, %q", IsAppLabel, AppSuffix, ctlapp.KappIsAppLabelKey, ctlapp.AppSuffix)
	}
}
