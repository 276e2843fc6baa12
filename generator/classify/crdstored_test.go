package classify

import (
	"slices"
	"testing"

	apiextensions "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// crdStoredVersions is a copy of the server's rule (its package may not be linked by classify):
// the server's own function, which a test may link, is the oracle.
func TestCRDStoredVersionsIsTheServers(t *testing.T) {
	version := func(name string, storage bool) apiextensions.CustomResourceDefinitionVersion {
		return apiextensions.CustomResourceDefinitionVersion{Name: name, Served: true, Storage: storage}
	}
	for _, tc := range []struct {
		stored   []string
		versions []apiextensions.CustomResourceDefinitionVersion
	}{
		{nil, []apiextensions.CustomResourceDefinitionVersion{version("v1", true)}},
		{[]string{"v1"}, []apiextensions.CustomResourceDefinitionVersion{version("v1", true)}},
		{[]string{"v1"}, []apiextensions.CustomResourceDefinitionVersion{version("v2", true)}},
		{[]string{"v1", "v2"}, []apiextensions.CustomResourceDefinitionVersion{version("v2", true), version("v3", false)}},
		{[]string{"v1", "v2", "v3"}, []apiextensions.CustomResourceDefinitionVersion{version("v4", true)}},
		{[]string{"v1", "v1"}, []apiextensions.CustomResourceDefinitionVersion{version("v2", false), version("v3", true)}},
	} {
		path := field.NewPath("status", "storedVersions")
		got, want := errorTexts(crdStoredVersions(tc.stored, tc.versions, path)), errorTexts(apiextensionsvalidation.ValidateCustomResourceDefinitionStoredVersions(tc.stored, tc.versions, path))
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("stored %v, versions %v: got %q, the server's %q", tc.stored, tc.versions, got, want)
		}
	}
}
