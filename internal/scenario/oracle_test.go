package scenario

import (
	"encoding/base64"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/client-go/applyconfigurations"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// TestTruthPathsAgreeWithStructuredMergeDiff checks the fixtures' truth paths (written at capture
// from fielddiff, the code the classification tests then check) against an oracle that does not
// use fielddiff: structured-merge-diff's own Compare of desired and live with the API server's
// schema (client-go's), after removing what is never a finding (status, server metadata, kapp's
// keys) and folding a Secret's stringData into data as the API server does. Every differing leaf
// must overlap a truth path (lie under it, or above it where fielddiff splits an atomic value into
// the items that differ), and every truth path must overlap a differing leaf.
func TestTruthPathsAgreeWithStructuredMergeDiff(t *testing.T) {
	all, err := LoadAll(fixtures)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range all {
		t.Run(s.Name, func(t *testing.T) {
			for _, o := range s.Objects {
				truth, err := fieldPaths(o.Desired, o.Live)
				if err != nil {
					t.Fatal(err)
				}
				leaves, err := smdDiff(o.Desired, o.Live)
				if err != nil {
					t.Fatal(err)
				}
				leaves.Iterate(func(l fieldpath.Path) {
					for _, p := range truth {
						if hasPrefix(l, fieldpath.Path(p)) || hasPrefix(fieldpath.Path(p), l) {
							return
						}
					}
					t.Errorf("%s: structured-merge-diff finds %s differing, no truth path covers it", o.Resource, l)
				})
				for _, p := range truth {
					found := false
					leaves.Iterate(func(l fieldpath.Path) {
						found = found || hasPrefix(l, fieldpath.Path(p)) || hasPrefix(fieldpath.Path(p), l)
					})
					if !found {
						t.Errorf("%s: truth path %s: structured-merge-diff finds no difference there", o.Resource, p)
					}
				}
			}
		})
	}
}

func hasPrefix(p, prefix fieldpath.Path) bool {
	if len(prefix) > len(p) {
		return false
	}
	for i := range prefix {
		if !p[i].Equals(prefix[i]) {
			return false
		}
	}
	return true
}

// smdDiff: the leaves structured-merge-diff's Compare reports added, removed or modified.
func smdDiff(desired, live *unstructured.Unstructured) (*fieldpath.Set, error) {
	d, l := withoutNoise(secretData(desired)), withoutNoise(live)
	conv := applyconfigurations.NewTypeConverter(scheme.Scheme)
	td, errD := conv.ObjectToTyped(d, typed.AllowDuplicates)
	tl, errL := conv.ObjectToTyped(l, typed.AllowDuplicates)
	if errD != nil || errL != nil || d.GetAPIVersion() != l.GetAPIVersion() {
		deduced := managedfields.NewDeducedTypeConverter()
		var err error
		if td, err = deduced.ObjectToTyped(d); err != nil {
			return nil, err
		}
		if tl, err = deduced.ObjectToTyped(l); err != nil {
			return nil, err
		}
	}
	cmp, err := td.Compare(tl)
	if err != nil {
		return nil, err
	}
	return cmp.Added.Union(cmp.Removed).Union(cmp.Modified).Leaves(), nil
}

// withoutNoise drops status, the metadata the API server stamps and every kapp.k14s.io/ key.
func withoutNoise(u *unstructured.Unstructured) *unstructured.Unstructured {
	u = u.DeepCopy()
	delete(u.Object, "status")
	if md, ok := u.Object["metadata"].(map[string]any); ok {
		for _, k := range []string{"uid", "resourceVersion", "generation", "creationTimestamp", "managedFields", "selfLink"} {
			delete(md, k)
		}
	}
	var walk func(v any)
	walk = func(v any) {
		switch t := v.(type) {
		case map[string]any:
			for k, x := range t {
				if strings.HasPrefix(k, "kapp.k14s.io/") {
					delete(t, k)
					continue
				}
				if m, ok := x.(map[string]any); ok && len(m) > 0 {
					if walk(x); len(m) == 0 {
						delete(t, k) // kapp's keys were all it held
					}
					continue
				}
				walk(x)
			}
		case []any:
			for _, x := range t {
				walk(x)
			}
		}
	}
	walk(u.Object)
	return u
}

// secretData folds a desired Secret's stringData into data, base64-encoded, as the API server does
// (written again here: fielddiff's own folding is part of what the test checks).
func secretData(u *unstructured.Unstructured) *unstructured.Unstructured {
	sd, ok := u.Object["stringData"].(map[string]any)
	if !ok || u.GetKind() != "Secret" {
		return u
	}
	u = u.DeepCopy()
	data, _ := u.Object["data"].(map[string]any)
	if data == nil {
		data = map[string]any{}
	}
	for k, v := range sd {
		s, _ := v.(string)
		data[k] = base64.StdEncoding.EncodeToString([]byte(s))
	}
	u.Object["data"] = data
	delete(u.Object, "stringData")
	return u
}
