package generator_test

import (
	"encoding/json"
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"

	ctllog "carvel.dev/kapp/pkg/kapp/logger"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

const appLabel = "kapp.k14s.io/app"

// A live object labelled kapp.k14s.io/app with another value than the app's other objects (another
// app's object, or a file mixing two apps' objects read with kubectl) passed check as "kapp keeps
// 2/2", a change made in Git as "kapp applies it on deploy", while kapp's deploy fails its
// ownership check before applying anything (probe9 P9-3). The oracle is kapp's own check
// (LabeledResources.AllAndMatching, as kapp deploy calls it, over the captured objects as the
// cluster): the deploy fails whichever value the app's is exactly when check fails the gate with
// an ownership finding, and the objects named are those kapp names for the value most carry.
func TestOwnershipConflictIsKappsDeployFailing(t *testing.T) {
	for _, c := range []struct {
		name, fixture, object, label string
		exists                       bool // the manifest marks the object kapp.k14s.io/exists
		want                         bool // the deploy fails
	}{
		{"tie", "hpa-replicas", "HorizontalPodAutoscaler", "1111111111111111111", false, true},
		{"majority", "services", "web", "1111111111111111111", false, true},
		{"empty value", "services", "web", "", false, true},
		{"exists annotation", "services", "web", "1111111111111111111", true, false},
		{"as captured", "services", "", "", false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := fixture(c.fixture)
			edited := func(u *unstructured.Unstructured) bool {
				return c.object != "" && (u.GetKind() == c.object || u.GetName() == c.object)
			}
			in.Live = []string{editedFixture(t, in.Live[0], func(u *unstructured.Unstructured) bool {
				if edited(u) {
					relabel(t, u, c.label)
				}
				return true
			})}
			in.Desired = []string{editedFixture(t, in.Desired[0], func(u *unstructured.Unstructured) bool {
				if c.exists && edited(u) {
					u.SetAnnotations(map[string]string{"kapp.k14s.io/exists": ""})
				}
				return true
			})}
			ch, err := generator.Check(in, nil)
			if err != nil {
				t.Fatal(err)
			}
			var named []string
			for _, f := range ch.Findings(verdict.Gate{}) {
				if f.Kind != verdict.KindOwnership {
					continue
				}
				named = append(named, f.Resource.Name)
				if !f.Fails || !strings.Contains(f.Evidence, appLabel+"="+c.label) && c.label != "" || f.File == "" {
					t.Errorf("%s: want a failing finding naming the object's label %q, located in the manifest, got (fails %v, %s:%d) %s", f.Resource, c.label, f.Fails, f.File, f.Line, f.Evidence)
				}
			}

			live, desired := objects(t, in.Live[0], ""), objects(t, in.Desired[0], in.Namespace)
			counts := map[string]int{}
			for _, o := range live {
				if v := o.GetLabels()[appLabel]; v != "" {
					counts[v]++
				}
			}
			failsAlways, best := len(counts) > 0, 0
			var refused map[string][]string // by the app's value: the objects kapp's check names
			refused = map[string][]string{}
			for app, n := range counts {
				names, err := kappOwnershipCheck(live, desired, app)
				if err != nil {
					t.Fatal(err)
				}
				refused[app] = names
				failsAlways = failsAlways && len(names) > 0
				best = max(best, n)
			}
			if failsAlways != c.want {
				t.Fatalf("kapp's ownership check fails under every app value: %v, want %v (oracle or fixture changed): %v", failsAlways, c.want, refused)
			}
			if (len(named) > 0) != failsAlways {
				t.Fatalf("check names %v as another app's; kapp's deploy fails whatever the app's value: %v (%v)", named, failsAlways, refused)
			}
			if !failsAlways {
				return
			}
			matched := false
			for app, n := range counts {
				matched = matched || n == best && slices.Equal(sorted(refused[app]), sorted(named))
			}
			if !matched {
				t.Errorf("check names %v; kapp's check names, by the app's value, %v (counts %v)", named, refused, counts)
			}
		})
	}
}

// relabel gives the live object, and what kapp last applied to it, label as its app's value.
func relabel(t *testing.T, u *unstructured.Unstructured, label string) {
	t.Helper()
	ls := u.GetLabels()
	ls[appLabel] = label
	u.SetLabels(ls)
	ann := u.GetAnnotations()
	var orig map[string]any
	if err := json.Unmarshal([]byte(ann["kapp.k14s.io/original"]), &orig); err != nil {
		t.Fatal(err)
	}
	if err := unstructured.SetNestedField(orig, label, "metadata", "labels", appLabel); err != nil {
		t.Fatal(err)
	}
	bs, err := json.Marshal(orig)
	if err != nil {
		t.Fatal(err)
	}
	ann["kapp.k14s.io/original"] = string(bs)
	u.SetAnnotations(ann)
}

func objects(t *testing.T, file, namespace string) []*unstructured.Unstructured {
	t.Helper()
	objs, err := load.Paths([]string{file}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []*unstructured.Unstructured
	for _, o := range objs {
		if o.GetNamespace() == "" {
			o.SetNamespace(namespace)
		}
		out = append(out, o.Unstructured)
	}
	return out
}

func sorted(s []string) []string { s = slices.Clone(s); slices.Sort(s); return s }

// kappOwnershipCheck runs kapp deploy's listing of the app's objects (label app) over the live
// objects as the cluster, with the desired objects as the new resources, and returns the names
// of the objects its ownership check refuses (none when it passes).
func kappOwnershipCheck(live, desired []*unstructured.Unstructured, app string) ([]string, error) {
	cluster := clusterOf(live)
	ids := ctlres.NewIdentifiedResources(fake.NewSimpleClientset(), listable{}, cluster, nil, ctllog.NewNoopLogger())
	sel := labels.Set{appLabel: app}.AsSelector()
	var news []ctlres.Resource
	for _, d := range desired {
		news = append(news, ctlres.NewResourceUnstructured(*d.DeepCopy(), ctlres.ResourceType{}))
	}
	// kapp deploy's options (cmd/app/deploy.go) with its flags' defaults, kapp-controller's too
	_, err := ctlres.NewLabeledResources(sel, ids, ctllog.NewNoopLogger()).AllAndMatching(news, ctlres.AllAndMatchingOpts{
		ExistingNonLabeledResourcesCheck: true, ExistingNonLabeledResourcesCheckConcurrency: 1,
		DisallowedResourcesByLabelKeys: []string{"kapp.k14s.io/is-app"},
	})
	if err == nil {
		return nil, nil
	}
	if !strings.HasPrefix(err.Error(), "Ownership errors:") {
		return nil, err
	}
	var names []string
	for _, o := range live {
		r := ctlres.NewResourceUnstructured(*o, ctlres.ResourceType{})
		if strings.Contains(err.Error(), "Resource '"+r.Description()+"' is already associated") {
			names = append(names, o.GetName())
		}
	}
	return names, nil
}

// cluster is a cluster holding objs, for kapp's listing: one listable type, every object of it.
type cluster struct{ objs []ctlres.Resource }

func clusterOf(objs []*unstructured.Unstructured) cluster {
	var c cluster
	for _, o := range objs {
		c.objs = append(c.objs, ctlres.NewResourceUnstructured(*o.DeepCopy(), ctlres.ResourceType{}))
	}
	return c
}

func (c cluster) All(_ []ctlres.ResourceType, _ ctlres.AllOpts) ([]ctlres.Resource, error) {
	var out []ctlres.Resource
	for _, r := range c.objs {
		out = append(out, r.DeepCopy())
	}
	return out, nil
}

func (c cluster) Exists(res ctlres.Resource, _ ctlres.ExistsOpts) (ctlres.Resource, bool, error) {
	for _, r := range c.objs {
		if ctlres.NewUniqueResourceKey(r).String() == ctlres.NewUniqueResourceKey(res).String() {
			return r.DeepCopy(), true, nil
		}
	}
	return nil, false, nil
}

var errUnused = errors.New("not used by kapp's listing")

func (c cluster) Delete(ctlres.Resource) error                 { return errUnused }
func (c cluster) Get(ctlres.Resource) (ctlres.Resource, error) { return nil, errUnused }
func (c cluster) Patch(ctlres.Resource, types.PatchType, []byte) (ctlres.Resource, error) {
	return nil, errUnused
}
func (c cluster) Update(ctlres.Resource) (ctlres.Resource, error) { return nil, errUnused }
func (c cluster) Create(ctlres.Resource) (ctlres.Resource, error) { return nil, errUnused }

// listable is the cluster's one resource type, listable (the fake's All ignores types).
type listable struct{}

func (listable) All(bool) ([]ctlres.ResourceType, error) {
	return []ctlres.ResourceType{{APIResource: metav1.APIResource{Name: "any", Namespaced: true, Verbs: []string{"list"}}}}, nil
}
func (listable) Find(ctlres.Resource) (ctlres.ResourceType, error) {
	return ctlres.ResourceType{}, errUnused
}
func (listable) CanIgnoreFailingGroupVersion(schema.GroupVersion) bool { return false }

// oneApp is live, objects captured from several kapp apps, with every object labelled as the first
// one's app (kapp.k14s.io/app, wherever kapp wrote it): one app's objects, as kapp's deploy of
// them needs.
func oneApp(live string) string {
	values := regexp.MustCompile(`kapp\.k14s\.io/app: "?([0-9]+)`).FindAllStringSubmatch(live, -1)
	for _, v := range values {
		live = strings.ReplaceAll(live, v[1], values[0][1])
	}
	return live
}
