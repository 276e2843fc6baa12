package synth

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/value"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/pair"
)

// deployment is a Deployment pair whose pod spec holds the given containers and securityContext.
func deployment(t *testing.T, name string, desired, live []string, liveSC map[string]any, fs ...classify.Finding) classify.Resource {
	doc := func(containers []string, sc map[string]any) load.Doc {
		var cs []any
		for _, c := range containers {
			cs = append(cs, map[string]any{"name": c, "image": c})
		}
		spec := map[string]any{"containers": cs}
		if sc != nil {
			spec["securityContext"] = sc
		}
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "apps/v1", "kind": "Deployment",
			"metadata": map[string]any{"name": name, "namespace": "ns"},
			"spec":     map[string]any{"template": map[string]any{"spec": spec}}}}
		d, err := load.NewDoc(load.Object{Unstructured: u})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	return classify.Resource{Pair: pair.Pair{ID: pair.Identity{Group: "apps", Kind: "Deployment", Namespace: "ns", Name: name},
		Desired: doc(desired, nil), Live: doc(live, liveSC)}, Findings: fs}
}

func containerField(name, field string) classify.Finding {
	p := fielddiff.Path(fieldpath.MakePathOrDie("spec", "template", "spec", "containers",
		&value.FieldList{{Name: "name", Value: value.NewValueInterface(name)}}, field))
	return classify.Finding{Path: p, Change: fielddiff.Added, Class: classify.Defaulted, Live: "IfNotPresent"}
}

func emptySecurityContext() classify.Finding {
	return classify.Finding{Path: fielddiff.FromFields([]string{"spec", "template", "spec", "securityContext"}),
		Change: fielddiff.Added, Class: classify.Defaulted, Live: map[string]any{}}
}

// Items that line up by index get a plain copy; reordered items keep a ytt rule naming exactly
// that resource. A resource whose live value is not empty where the others' is an empty map is
// excluded from the plain copy and gets no ytt rule: it has no finding there.
func TestPlainCopiesOnlyWhereTheyAreRight(t *testing.T) {
	rep := &classify.Report{Resources: []classify.Resource{
		deployment(t, "aligned", []string{"a", "b"}, []string{"a", "b", "sidecar"}, map[string]any{},
			containerField("a", "imagePullPolicy"), emptySecurityContext()),
		deployment(t, "reordered", []string{"a", "b"}, []string{"b", "a"}, map[string]any{},
			containerField("a", "imagePullPolicy"), emptySecurityContext()),
		deployment(t, "filled", []string{"a"}, []string{"a"}, map[string]any{"runAsUser": int64(1)}),
	}}
	got := Synthesize(rep, Options{})
	var lines []string
	for _, r := range got.Rules {
		lines = append(lines, describe(r))
		if r.YTT() && r.ByKey == "" {
			t.Errorf("a ytt rule without its reason: %+v", r)
		}
	}
	want := []string{ // a plain rule for the kind except the resources named, a ytt rule for those
		"spec.template.spec.containers[*].imagePullPolicy names=reordered",
		"spec.template.spec.securityContext names=filled",
		"ytt:spec.template.spec.containers[name=a].imagePullPolicy names=reordered",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("rules:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

// object is a pair of id's kind whose desired and live objects are the given maps (apiVersion,
// kind and metadata filled in).
func object(t *testing.T, id pair.Identity, apiVersion string, desired, live map[string]any, fs ...classify.Finding) classify.Resource {
	doc := func(o map[string]any) load.Doc {
		obj := map[string]any{"apiVersion": apiVersion, "kind": id.Kind}
		for k, v := range o {
			obj[k] = v
		}
		md, _ := obj["metadata"].(map[string]any)
		if md == nil {
			md = map[string]any{}
		}
		md["name"], md["namespace"] = id.Name, id.Namespace
		obj["metadata"] = md
		d, err := load.NewDoc(load.Object{Unstructured: &unstructured.Unstructured{Object: obj}})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	return classify.Resource{Pair: pair.Pair{ID: id, Desired: doc(desired), Live: doc(live)}, Findings: fs}
}

// describe lists a rule's paths and the names its matchers hold, as the tests here compare them.
func describe(r Rule) string {
	var names, paths []string
	for _, m := range r.Matchers {
		m.Walk(func(m Matcher) {
			if m.KindNamespaceName != nil {
				names = append(names, m.KindNamespaceName.Name)
			}
			if m.EmptyField != nil {
				var keys []string
				for _, p := range m.EmptyField.Path {
					keys = append(keys, p.String())
				}
				names = append(names, "empty:"+strings.Join(keys, "."))
			}
		})
	}
	for _, p := range r.Paths {
		paths = append(paths, strings.Join(p, "."))
	}
	for _, p := range r.Indexed {
		paths = append(paths, indexKey(p)[1:])
	}
	for _, p := range append(r.Keyed, r.Empty...) {
		paths = append(paths, "ytt:"+p.String())
	}
	for _, rw := range r.Rewrites {
		paths = append(paths, "ytt:"+rw.Path.String())
	}
	if r.FoldStringData {
		paths = append(paths, "ytt:fold")
	}
	return strings.Join(paths, ",") + " names=" + strings.Join(names, ",")
}

// Items of an atomic list (no key: selected by index) are plain copies where the lists are as
// long desired as live; a resource whose live list is longer keeps a ytt rule naming it.
func TestAtomicListItemsByIndex(t *testing.T) {
	vct := func(n int) map[string]any {
		var items []any
		for range n {
			items = append(items, map[string]any{"spec": map[string]any{"volumeMode": "Filesystem"}})
		}
		return map[string]any{"spec": map[string]any{"volumeClaimTemplates": items}}
	}
	mode := classify.Finding{Path: fielddiff.Path(fieldpath.MakePathOrDie("spec", "volumeClaimTemplates", 0, "spec", "volumeMode")),
		Change: fielddiff.Added, Class: classify.Defaulted, Live: "Filesystem"}
	id := func(name string) pair.Identity {
		return pair.Identity{Group: "apps", Kind: "StatefulSet", Namespace: "ns", Name: name}
	}
	same := object(t, id("same"), "apps/v1", vct(1), vct(1), mode)
	grown := object(t, id("grown"), "apps/v1", vct(1), vct(2), mode)
	for _, c := range []struct {
		rs   []classify.Resource
		want []string
	}{
		// gated on the item's spec: kapp's copy would make it where a manifest lacks it (gated)
		{[]classify.Resource{same}, []string{"spec.volumeClaimTemplates[*].spec.volumeMode names=empty:spec.volumeClaimTemplates.[*].spec"}},
		{[]classify.Resource{same, grown}, []string{
			"spec.volumeClaimTemplates[*].spec.volumeMode names=grown,empty:spec.volumeClaimTemplates.[*].spec",
			"ytt:spec.volumeClaimTemplates[0].spec.volumeMode names=grown"}},
	} {
		var got []string
		for _, r := range Synthesize(&classify.Report{Resources: c.rs}, Options{}).Rules {
			got = append(got, describe(r))
		}
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("rules:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
		}
	}
}

// When no resource of the kind takes a plain copy, the ytt rule still names them: kapp runs a ytt
// rule for every resource it matches, on every deploy.
func TestYTTRuleNamesItsResourcesEvenIfAllOfTheKind(t *testing.T) {
	rep := &classify.Report{Resources: []classify.Resource{
		deployment(t, "reordered", []string{"a", "b"}, []string{"b", "a"}, nil, containerField("a", "imagePullPolicy")),
	}}
	var got []string
	for _, r := range Synthesize(rep, Options{}).Rules {
		got = append(got, describe(r))
		for _, m := range r.Matchers {
			if m.KindNamespaceName == nil {
				t.Errorf("a rule matching more than the named resource: %+v", m)
			}
		}
	}
	if want := "ytt:spec.template.spec.containers[name=a].imagePullPolicy names=reordered"; strings.Join(got, "\n") != want {
		t.Errorf("rules:\n%s\nwant:\n%s", strings.Join(got, "\n"), want)
	}
}

// Secret stringData folds only in Secrets whose manifest holds stringData, and in the rule that
// rewrites a Secret's values when it has one: one ytt run per Secret, not two.
func TestStringDataFoldsOnlyWhereDeclared(t *testing.T) {
	id := func(name string) pair.Identity { return pair.Identity{Kind: "Secret", Namespace: "ns", Name: name} }
	fold := classify.Finding{Path: fielddiff.FromFields([]string{"stringData"}), Change: fielddiff.Removed, Class: classify.Calculated, Desired: classify.Masked}
	unset := classify.Finding{Path: fielddiff.FromFields([]string{"data", "unset"}), Change: fielddiff.Modified, Class: classify.Defaulted, Live: classify.Masked}
	rep := &classify.Report{Resources: []classify.Resource{
		object(t, id("folded"), "v1", nil, nil, fold),
		object(t, id("rewritten"), "v1", nil, nil, fold, unset),
		object(t, id("plain"), "v1", nil, nil),
	}}
	var got []string
	for _, r := range Synthesize(rep, Options{}).Rules {
		got = append(got, describe(r))
	}
	want := []string{
		"ytt:fold names=empty:stringData,rewritten",
		"ytt:data.unset,ytt:fold names=rewritten",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rules:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	f := Synthesize(rep, Options{}).Rules[0].Matchers[0]
	if f.And == nil || len(f.And.Matchers) != 3 || f.And.Matchers[1].Not == nil || f.And.Matchers[1].Not.Matcher.EmptyField == nil ||
		f.And.Matchers[2].Not == nil || f.And.Matchers[2].Not.Matcher.Any == nil {
		t.Errorf("the fold rule matches Secrets whose stringData is not empty, except the rewritten one: %+v", f)
	}
}

// kapp's empty annotations map is a plain copy on the resources whose live annotations are empty
// as kapp reads them; one holding another annotation (a webhook's) is excluded and needs no rule.
func TestEmptyAnnotationsCopiedOnlyWhereLiveHasNone(t *testing.T) {
	id := func(name string) pair.Identity { return pair.Identity{Kind: "Service", Namespace: "ns", Name: name} }
	annotations := func(kv ...string) map[string]any {
		a := map[string]any{"kapp.k14s.io/identity": "v1;ns//Service/x;v1"}
		for i := 0; i+1 < len(kv); i += 2 {
			a[kv[i]] = kv[i+1]
		}
		return map[string]any{"metadata": map[string]any{"annotations": a}}
	}
	empty := classify.Finding{Path: annotationsPath, Change: fielddiff.Added, Class: classify.Calculated, Live: map[string]any{}}
	rep := &classify.Report{Resources: []classify.Resource{
		object(t, id("bare"), "v1", nil, annotations(), empty),
		object(t, id("stamped"), "v1", nil, annotations("webhook.example.com/stamped", "true")),
	}}
	var got []string
	for _, r := range Synthesize(rep, Options{}).Rules {
		got = append(got, describe(r))
		if r.YTT() {
			t.Errorf("a ytt rule: %+v", r)
		}
	}
	if want := "metadata.annotations names=stamped,empty:metadata.annotations"; strings.Join(got, "\n") != want {
		t.Errorf("rules:\n%s\nwant:\n%s", strings.Join(got, "\n"), want)
	}
}

// The ytt rule for the resources a plain copy would be wrong on holds their paths only, and its
// comment names them only: another Deployment's container names select nothing in theirs.
func TestYTTRuleHoldsItsResourcesPathsOnly(t *testing.T) {
	rep := &classify.Report{Resources: []classify.Resource{
		deployment(t, "reordered", []string{"a", "b"}, []string{"b", "a"}, nil, containerField("a", "imagePullPolicy")),
		deployment(t, "other", []string{"c"}, []string{"c"}, nil, containerField("c", "imagePullPolicy")),
	}}
	var got []string
	for _, r := range Synthesize(rep, Options{}).Rules {
		var res []string
		for _, id := range r.Resources {
			res = append(res, id.Name)
		}
		got = append(got, describe(r)+" resources="+strings.Join(res, ","))
	}
	want := []string{
		"spec.template.spec.containers[*].imagePullPolicy names=reordered resources=other,reordered",
		"ytt:spec.template.spec.containers[name=a].imagePullPolicy names=reordered resources=reordered",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rules:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A copy by index of a map a manifest of the kind declares in a list item would put the live map
// back once Git removed the manifest's (issue 23). It stays a plain copy wherever that cannot
// happen: the kind-wide rule keeps only the paths no manifest declares a map or list at
// (imagePullPolicy), and the container resources go to a plain copy naming the resource that
// needs them and declares none ("worker"); a resource declaring its own with no finding there
// ("api") is matched by no copy of them. Only a resource that needs them in one item and declares
// them in another ("mixed") takes the ytt rule selecting by key the item that lacks them.
func TestACopyByIndexOfADeclaredMapStaysPlainWhereItCannotPutARemovalBack(t *testing.T) {
	id := func(name string) pair.Identity {
		return pair.Identity{Group: "apps", Kind: "Deployment", Namespace: "ns", Name: name}
	}
	pod := func(containers ...map[string]any) map[string]any {
		var cs []any
		for _, c := range containers {
			cs = append(cs, c)
		}
		return map[string]any{"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"containers": cs}}}}
	}
	container := func(name string, fields map[string]any) map[string]any {
		c := map[string]any{"name": name, "image": "nginx"}
		for k, v := range fields {
			c[k] = v
		}
		return c
	}
	declared := map[string]any{"resources": map[string]any{"limits": map[string]any{"cpu": "1"}}}
	served := map[string]any{"resources": map[string]any{}, "imagePullPolicy": "IfNotPresent"}
	servedWith := map[string]any{"resources": map[string]any{"limits": map[string]any{"cpu": "1"}}, "imagePullPolicy": "IfNotPresent"}
	emptyResources := func(name string) classify.Finding {
		f := containerField(name, "resources")
		f.Live = map[string]any{}
		return f
	}
	rep := &classify.Report{Resources: []classify.Resource{
		object(t, id("worker"), "apps/v1", pod(container("w", nil)), pod(container("w", served)),
			containerField("w", "imagePullPolicy"), emptyResources("w")),
		object(t, id("api"), "apps/v1", pod(container("a", declared)), pod(container("a", servedWith)),
			containerField("a", "imagePullPolicy")),
		object(t, id("mixed"), "apps/v1", pod(container("a", declared), container("b", nil)), pod(container("a", servedWith), container("b", served)),
			containerField("a", "imagePullPolicy"), containerField("b", "imagePullPolicy"), emptyResources("b")),
	}}
	var got []string
	for _, r := range Synthesize(rep, Options{}).Rules {
		got = append(got, describe(r))
		if r.YTT() && !strings.Contains(r.ByKey, "declares spec.template.spec.containers[*].resources in an item") {
			t.Errorf("the ytt rule does not say why: %q", r.ByKey)
		}
	}
	want := []string{
		"spec.template.spec.containers[*].imagePullPolicy names=mixed", // every Deployment except mixed
		"ytt:spec.template.spec.containers[name=a].imagePullPolicy,ytt:spec.template.spec.containers[name=b].imagePullPolicy,ytt:spec.template.spec.containers[name=b].resources names=mixed",
		"spec.template.spec.containers[*].resources names=worker",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rules:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
