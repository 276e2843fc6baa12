package kappprep

import (
	"reflect"
	"testing"

	ctlapp "carvel.dev/kapp/pkg/kapp/app"
	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	"carvel.dev/kapp/pkg/kapp/logger"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"

	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// kappPrepares is the oracle: desired prepared by kapp's own functions as kapp deploy calls them
// (cmd/app/deploy.go newResources), each rule's mods made by kapp for the resource.
func kappPrepares(t *testing.T, conf ctlconf.Conf, desired *unstructured.Unstructured, appLabel string) map[string]any {
	t.Helper()
	rs := []ctlres.Resource{ctlres.NewResourceUnstructured(*desired.DeepCopy(), ctlres.ResourceType{})}
	rs, err := ctlapp.NewPreparation(newOfflineTypes(rs), ctlapp.PrepareResourcesOpts{
		BeforeModificationFunc: func(rs []ctlres.Resource) []ctlres.Resource { return rs },
	}).PrepareResources(rs)
	if err != nil {
		t.Fatal(err)
	}
	sel := labels.Set{kappconv.AppLabel: appLabel}.AsSelector()
	if err := ctlres.NewLabeledResources(sel, ctlres.IdentifiedResources{}, logger.NewNoopLogger()).Prepare(
		rs, conf.OwnershipLabelMods(), conf.LabelScopingMods(true), conf.AdditionalLabels()); err != nil {
		t.Fatal(err)
	}
	return rs[0].UnstructuredObject()
}

func object(t *testing.T, doc string) *unstructured.Unstructured {
	t.Helper()
	var m map[string]any
	if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: m}
}

// One Preparer prepares many objects, in any order and concurrently, each exactly as kapp
// prepares it alone: its own app and association labels, the package's ownership and label
// scoping rules and additional labels; its rules' matchers are made once (performance), not per
// object as kapp makes them.
func TestPreparerPreparesAsKapp(t *testing.T) {
	cfg := object(t, `apiVersion: kapp.k14s.io/v1alpha1
kind: Config
additionalLabels: {team: payments}
ownershipLabelRules:
- path: [spec, jobTemplate, metadata, labels]
  resourceMatchers: [{apiVersionKindMatcher: {apiVersion: batch/v1, kind: CronJob}}]
labelScopingRules:
- path: [spec, jobTemplate, spec, selector, matchLabels]
  resourceMatchers: [{apiVersionKindMatcher: {apiVersion: batch/v1, kind: CronJob}}]
`)
	_, conf, err := ctlconf.NewConfFromResourcesWithDefaults([]ctlres.Resource{ctlres.NewResourceUnstructured(*cfg, ctlres.ResourceType{})})
	if err != nil {
		t.Fatal(err)
	}
	objs := []*unstructured.Unstructured{
		object(t, `{apiVersion: apps/v1, kind: Deployment, metadata: {name: web, namespace: prod, labels: {app: web}},
  spec: {selector: {matchLabels: {app: web}}, template: {metadata: {labels: {app: web}}, spec: {containers: [{name: c, image: i}]}}}}`),
		object(t, `{apiVersion: batch/v1, kind: CronJob, metadata: {name: nightly, namespace: prod},
  spec: {schedule: "@daily", jobTemplate: {metadata: {labels: {job: n}}, spec: {selector: {matchLabels: {job: n}}, template: {spec: {containers: [{name: c, image: i}]}}}}}}`),
		object(t, `{apiVersion: v1, kind: Service, metadata: {name: web, namespace: prod}, spec: {selector: {app: web}, ports: [{port: 80}]}}`),
		object(t, `{apiVersion: v1, kind: ConfigMap, metadata: {name: cm, namespace: prod}, data: {a: b}}`),
	}
	p := NewPreparer(conf)
	done := make(chan struct{})
	for i, o := range objs {
		for _, app := range []string{"app-one", "app-two"} {
			go func() {
				defer func() { done <- struct{}{} }()
				got, err := p.Object(o, app)
				if err != nil {
					t.Error(err)
					return
				}
				if want := kappPrepares(t, conf, o, app); !reflect.DeepEqual(got.Object, want) {
					t.Errorf("object %d, app %s: prepared\n%v\nkapp prepares\n%v", i, app, got.Object, want)
				}
			}()
		}
	}
	for range 2 * len(objs) {
		<-done
	}
	// the objects are left as they were
	if _, ok := objs[0].GetLabels()[kappconv.AppLabel]; ok {
		t.Error("the desired object was labelled in place")
	}
	// made once: preparing an object costs fewer allocations than kapp making every rule's
	// matchers for it (its built-in Config alone has dozens of ownership and scoping rules)
	mine := testing.AllocsPerRun(20, func() { p.Object(objs[0], "app-one") })
	kapps := testing.AllocsPerRun(20, func() { kappPrepares(t, conf, objs[0], "app-one") })
	if mine >= kapps-50 {
		t.Errorf("a Preparer took %.0f allocations to prepare a Deployment, kapp's own functions %.0f: its rules' mods are made anew", mine, kapps)
	}
}
