package emit

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/value"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/generator/synth"
)

// TestRuleCommentNamesFewResources (issue 11): a rule matching a fleet names the first resources
// in its comment and counts the rest, saying where every one is listed (newcomer5 F7: "and 7
// more" named none of them), instead of one line naming every resource; one more is named.
func TestRuleCommentNamesFewResources(t *testing.T) {
	for _, n := range []int{1, 5, 6, 1000} {
		var ids []pair.Identity
		for i := range n {
			ids = append(ids, pair.Identity{Group: "apps", Kind: "Deployment", Namespace: "ns", Name: fmt.Sprintf("web-%04d", i)})
		}
		rule := synth.Rule{Classes: []classify.Class{classify.Defaulted}, Resources: ids, Sources: synth.UserWins(),
			Paths:    [][]string{{"spec", "revisionHistoryLimit"}},
			Matchers: []synth.Matcher{{APIVersionKind: &synth.APIVersionKind{APIVersion: "apps/v1", Kind: "Deployment"}}}}
		var b strings.Builder
		if err := WriteRules(&b, []synth.Rule{rule}, Header{Options: Options{Format: FormatConfig}}); err != nil {
			t.Fatal(err)
		}
		var line string
		for _, l := range strings.Split(b.String(), "\n") {
			if strings.HasPrefix(l, "#! defaulted: ") {
				line = l
			}
		}
		want := "#! defaulted: apps/Deployment ns/web-0000"
		switch n {
		case 5:
			want += ", apps/Deployment ns/web-0001, apps/Deployment ns/web-0002, apps/Deployment ns/web-0003, apps/Deployment ns/web-0004"
		case 6:
			want += ", apps/Deployment ns/web-0001, apps/Deployment ns/web-0002, apps/Deployment ns/web-0003, apps/Deployment ns/web-0004, apps/Deployment ns/web-0005"
		case 1000:
			want += ", apps/Deployment ns/web-0001, apps/Deployment ns/web-0002, apps/Deployment ns/web-0003, apps/Deployment ns/web-0004 and 995 more (rebasegen explain --group=false lists every resource)"
		}
		if line != want {
			t.Errorf("%d resources: comment\n%s\nwant\n%s", n, line, want)
		}
	}
}

// A rule's comment names its classes, a controller-owned field's class with each manager owning
// one: the typed provenance written as reports write classes.
func TestRuleCommentNamesClassesAndOwners(t *testing.T) {
	rule := synth.Rule{Classes: []classify.Class{classify.Calculated, classify.Controller}, Owners: []string{"hpa", "kube-controller-manager"},
		Resources: []pair.Identity{{Kind: "Service", Namespace: "ns", Name: "a"}, {Group: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "view"}},
		Sources:   synth.ControllerWins(), Paths: [][]string{{"spec", "x"}},
		Matchers: []synth.Matcher{{APIVersionKind: &synth.APIVersionKind{APIVersion: "v1", Kind: "Service"}}}}
	var b strings.Builder
	if err := WriteRules(&b, []synth.Rule{rule}, Header{Options: Options{Format: FormatConfig}}); err != nil {
		t.Fatal(err)
	}
	want := "#! calculated, controller:hpa, controller:kube-controller-manager: core/Service ns/a, rbac.authorization.k8s.io/ClusterRole view\n"
	if !strings.Contains(b.String(), want) {
		t.Errorf("want the comment line\n%s in\n%s", want, b.String())
	}
}

// synth.KappMatchers, which the mutation check and lint match with, is what kapp's parser reads
// from the matchers emit writes: every shape synth writes, nested ones included.
func TestKappMatchersAreWhatKappReads(t *testing.T) {
	kind := synth.Matcher{APIVersionKind: &synth.APIVersionKind{APIVersion: "apps/v1", Kind: "Deployment"}}
	named := synth.Matcher{KindNamespaceName: &synth.KindNamespaceName{Kind: "Deployment", Namespace: "ns", Name: "a"}}
	rules := []synth.Rule{
		{Sources: synth.UserWins(), Paths: [][]string{{"spec", "x"}}, Matchers: []synth.Matcher{kind, {APIGroupKind: &synth.APIGroupKind{APIGroup: "apps", Kind: "StatefulSet"}}}},
		{Sources: synth.ControllerWins(), Paths: [][]string{{"spec", "x"}}, Matchers: []synth.Matcher{named, {KindNamespaceName: &synth.KindNamespaceName{Kind: "ClusterRole", Name: "view"}}}},
		{Sources: synth.UserWins(), Paths: [][]string{{"metadata", "annotations"}}, Matchers: []synth.Matcher{{And: &synth.Matchers{Matchers: []synth.Matcher{
			kind, {Not: &synth.Not{Matcher: synth.Matcher{Any: &synth.Matchers{Matchers: []synth.Matcher{named}}}}},
			{EmptyField: &synth.EmptyField{Path: synth.Keys("metadata", "annotations")}}}}}}},
	}
	var b strings.Builder
	if err := WriteRules(&b, rules, Header{Options: Options{Format: FormatConfig}}); err != nil {
		t.Fatal(err)
	}
	cfg := parseConfig(t, []byte(b.String()))
	for i, r := range rules {
		got, err := synth.KappMatchers(r.Matchers)
		if err != nil {
			t.Fatal(err)
		}
		if want := cfg.RebaseRules[i].ResourceMatchers; !reflect.DeepEqual(got, want) {
			t.Errorf("rule %d: KappMatchers %s, kapp reads %s", i, js(t, got), js(t, want))
		}
	}
}

func js(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Paths that differ in one map key only become one path with a regex part there, at any depth;
// paths differing in two parts, or whose leaves differ, stay apart (a merge must match exactly
// the union of the paths, nothing more).
func TestPathsDifferingInOneKeyMerge(t *testing.T) {
	item := func(list string, leaf string) fielddiff.Path {
		return fielddiff.Path(fieldpath.MakePathOrDie("spec", "template", "spec", list,
			&value.FieldList{{Name: "name", Value: value.NewValueInterface("c")}}, leaf))
	}
	rule := synth.Rule{Sources: synth.UserWins(),
		Paths: [][]string{{"spec", "x"}, {"spec", "v", "z"}, {"spec", "v", "w"}, {"status", "x"}},
		Indexed: []fielddiff.Path{item("containers", "a"), item("containers", "b"), item("initContainers", "b"), item("initContainers", "a"),
			item("ephemeralContainers", "a")},
		Matchers: []synth.Matcher{{APIVersionKind: &synth.APIVersionKind{APIVersion: "apps/v1", Kind: "Deployment"}}}}
	want := []string{
		`{regex: "^(spec|status)$"}, x`,
		`spec, v, {regex: "^(z|w)$"}`,
		`spec, template, spec, {regex: "^(containers|initContainers)$"}, {allIndexes: true}, {regex: "^(a|b)$"}`,
		`spec, template, spec, ephemeralContainers, {allIndexes: true}, a`,
	}
	var got []string
	for _, p := range siblingsAsRegex(rule) {
		got = append(got, pathText(p))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("paths:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var b strings.Builder
	if err := WriteRules(&b, []synth.Rule{rule}, Header{Options: Options{Format: FormatConfig}}); err != nil {
		t.Fatal(err)
	}
	if n := len(parseConfig(t, []byte(b.String())).RebaseRules[0].Paths); n != len(want) {
		t.Errorf("kapp reads %d paths, want %d", n, len(want))
	}
}
