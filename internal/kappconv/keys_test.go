package kappconv

import "testing"

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
