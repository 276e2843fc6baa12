package fielddiff

import (
	"encoding/base64"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/client-go/applyconfigurations"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// builtin knows the structured-merge-diff schema of every built-in kind (the one the API
// server uses for server-side apply, embedded in client-go). Built on first use, not when the
// package is initialised: parsing the schema is most of what every command of the binary paid
// at start, `rebasegen version` and --help included.
var builtin = sync.OnceValue(func() managedfields.TypeConverter {
	return applyconfigurations.NewTypeConverter(scheme.Scheme)
})

var deduced = managedfields.NewDeducedTypeConverter()

// toTyped converts both objects with the built-in schema when it knows their kind and both
// have the same apiVersion; otherwise (custom resources, fields the schema does not know,
// desired and live under different versions) both are compared schema-less, lists by index.
// dDeclared says whether d's conversion is the one Declared makes: built-in, or schema-less
// because the built-in schema rejects d.
func toTyped(d, l *unstructured.Unstructured) (td, tl *typed.TypedValue, dDeclared bool, err error) {
	if d.GetAPIVersion() == l.GetAPIVersion() {
		td, errD := builtinTyped(d)
		tl, errL := builtinTyped(l)
		if errD == nil && errL == nil {
			return td, tl, true, nil
		}
		dDeclared = errD != nil
	}
	if td, err = deduced.ObjectToTyped(d); err != nil {
		return nil, nil, false, err
	}
	tl, err = deduced.ObjectToTyped(l)
	return td, tl, dDeclared, err
}

// Normalize round-trips a built-in object through its Go type, as the API server stores it:
// quantities become canonical ("0.5" -> "500m"), numbers int64, IntOrString typed. Objects of
// kinds without a Go type are returned as they are.
func Normalize(u *unstructured.Unstructured) *unstructured.Unstructured {
	u = FoldStringData(u)
	obj, err := scheme.Scheme.New(u.GroupVersionKind())
	if err != nil {
		return u
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, obj); err != nil {
		return u
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return u
	}
	return &unstructured.Unstructured{Object: m}
}

// Stored is a Secret's stringData value as the API server stores it in data: base64-encoded.
func Stored(v any) string {
	s, _ := v.(string)
	return base64.StdEncoding.EncodeToString([]byte(s))
}

// FoldStringData moves a Secret's stringData into data, base64-encoded, as the API server does,
// so a desired stringData pairs with the live data.
func FoldStringData(u *unstructured.Unstructured) *unstructured.Unstructured {
	sd, ok := u.Object["stringData"].(map[string]any)
	if !ok || u.GetKind() != "Secret" || u.GetAPIVersion() != "v1" {
		return u
	}
	u = u.DeepCopy()
	data, _ := u.Object["data"].(map[string]any)
	if data == nil {
		data = map[string]any{}
	}
	for k, v := range sd {
		data[k] = Stored(v)
	}
	u.Object["data"] = data
	delete(u.Object, "stringData")
	return u
}

// Declared returns the leaf fields an object declares, in managedFields' terms (list items by
// their merge keys where the built-in schema knows them), without apiVersion, kind and the
// name and namespace, which managedFields never record.
func Declared(u *unstructured.Unstructured) (*fieldpath.Set, error) {
	tv, err := builtinTyped(u)
	if err != nil {
		if tv, err = deduced.ObjectToTyped(u); err != nil {
			return nil, err
		}
	}
	return declared(ordered(tv))
}

// declared is Declared of tv, u converted and ordered.
func declared(tv *typed.TypedValue) (*fieldpath.Set, error) {
	set, err := tv.ToFieldSet()
	if err != nil {
		return nil, err
	}
	unrecorded := fieldpath.NewSet(fieldpath.MakePathOrDie("apiVersion"), fieldpath.MakePathOrDie("kind"),
		fieldpath.MakePathOrDie("metadata", "name"), fieldpath.MakePathOrDie("metadata", "namespace"))
	return set.Difference(unrecorded).Leaves(), nil
}
