package compare_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rebasegen/rebasegen/compare"
)

// liveConfigMap is a ConfigMap as the API server returns it: the controller (field manager
// "my-controller") applied data.greeting; another controller added data.checksum with an update.
func liveConfigMap() *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "demo", ResourceVersion: "7",
			ManagedFields: []metav1.ManagedFieldsEntry{
				{Manager: "my-controller", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "v1",
					FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:data":{"f:greeting":{}}}`)}},
				{Manager: "checksummer", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1",
					FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:data":{"f:checksum":{}}}`)}},
			}},
		Data: map[string]string{"greeting": "hello", "checksum": "5d41402a"},
	}
}

// desiredConfigMap is what the controller writes: data.greeting, as it applied it.
func desiredConfigMap() *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "demo"},
		Data:       map[string]string{"greeting": "hello"},
	}
}

// A controller asks before it applies: the desired object is what it would apply, live what its
// cache holds.
func Example() {
	c, err := compare.New(compare.WithApply("my-controller"))
	if err != nil {
		panic(err)
	}
	live := liveConfigMap()
	desired := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "demo"},
		Data:       map[string]string{"greeting": "hello"},
	}
	r, err := c.Compare(desired, live)
	if err != nil {
		panic(err)
	}
	fmt.Println(r.Verdict, r.NeedsWrite())

	desired.Data["greeting"] = "bonjour"
	if r, err = c.Compare(desired, live); err != nil {
		panic(err)
	}
	fmt.Println(r.Verdict, r.NeedsWrite())
	for _, f := range r.Fields {
		fmt.Println(f.Path, f.Effect, f.Class, f.Owner)
	}
	// Output:
	// NoChange false
	// Changes true
	// data.checksum kept controller checksummer
	// data.greeting set drift
}

// An update (PUT) replaces the whole object: it removes what another controller added.
func ExampleWithUpdate() {
	c, err := compare.New(compare.WithUpdate())
	if err != nil {
		panic(err)
	}
	r, err := c.Compare(desiredConfigMap(), liveConfigMap())
	if err != nil {
		panic(err)
	}
	fmt.Println(r.Verdict)
	for _, f := range r.Fields {
		fmt.Println(f.Path, f.Effect, f.Owner)
	}
	// Output:
	// Changes
	// data.checksum removed checksummer
}

// Fields another controller owns can be left out by its manager's name, and any field by its
// path (list items by their merge keys: spec.template.spec.containers[name=sidecar]).
func ExampleWithIgnoreManagers() {
	c, err := compare.New(compare.WithUpdate(), compare.WithIgnoreManagers("checksummer"))
	if err != nil {
		panic(err)
	}
	r, err := c.Compare(desiredConfigMap(), liveConfigMap())
	if err != nil {
		panic(err)
	}
	fmt.Println(r.Verdict, len(r.Fields))
	// Output:
	// NoChange 0
}
