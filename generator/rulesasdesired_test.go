package generator_test

import (
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/synth"
)

// generate given its own rules as the manifests pairs nothing: it refuses, naming the file and
// what it holds, as it refuses any input where no desired object pairs. It wrote an empty Config
// and exited 0 with "0 rules; kapp keeps 0/0 paired resources" (newcomer walkthrough 6, N6-12).
func TestGenerateRefusesRulesGivenAsTheManifests(t *testing.T) {
	in := fixture("services")
	rules, g := generatedRules(t, in)
	if len(g.Rules) == 0 {
		t.Fatal("no rules generated for fixtures/services")
	}
	in.Desired = []string{rules}
	_, err := generator.Generate(in, synth.Options{})
	if err == nil || !strings.Contains(err.Error(), rules+": only kapp rules (kapp Config documents), no objects") || !strings.Contains(err.Error(), "-d (--desired)") {
		t.Fatalf("generate -d %s: %v, want a refusal naming the file and that it holds only rules", rules, err)
	}
}

// check given the rules as the manifests refuses them as generate does; it passed, exit 0, with
// nothing compared (newcomer walkthrough 6, N6-12's check).
func TestCheckRefusesRulesGivenAsTheManifests(t *testing.T) {
	in := fixture("services")
	rules, _ := generatedRules(t, in)
	in.Desired = []string{rules}
	ch, err := generator.Check(in, []string{rules})
	if err == nil || !strings.Contains(err.Error(), rules+": only kapp rules (kapp Config documents), no objects") {
		t.Fatalf("check -d %s --rules %[1]s: %v (result %+v), want a refusal naming the file and that it holds only rules", rules, err, ch)
	}
}

// explain given the rules as the manifests refuses them as check and generate do: it printed every
// live object as "live only" and a summary of 0 resources, exit 0 (newcomer walkthrough 8, N8-7).
func TestExplainRefusesRulesGivenAsTheManifests(t *testing.T) {
	in := fixture("services")
	rules, _ := generatedRules(t, in)
	in.Desired = []string{rules}
	rep, _, err := generator.Explain(in)
	if err == nil || !strings.Contains(err.Error(), rules+": only kapp rules (kapp Config documents), no objects") {
		t.Fatalf("explain -d %s: %v (report %+v), want a refusal naming the file and that it holds only rules", rules, err, rep)
	}
}

// lint given the rules as the manifests refuses them as the other commands do, with live objects
// or without: it warned that each of the rules' matchers "matches none of the desired objects"
// (5 warnings on fixtures/hpa-replicas' rules), exit 0 (newcomer walkthrough 10, N10-7).
func TestLintRefusesRulesGivenAsTheManifests(t *testing.T) {
	in := fixture("hpa-replicas")
	rules, _ := generatedRules(t, in)
	for _, live := range [][]string{in.Live, nil} {
		in := in
		in.Desired, in.Live = []string{rules}, live
		findings, _, err := generator.Lint(in, []string{rules})
		if err == nil || !strings.Contains(err.Error(), rules+": only kapp rules (kapp Config documents), no objects") || !strings.Contains(err.Error(), "-d (--desired)") {
			t.Errorf("lint -d %s --rules %[1]s (live %v): %v (findings %+v), want a refusal naming the file and that it holds only rules", rules, live, err, findings)
		}
	}
}

// When every object's manifest moves it to another namespace nothing pairs, and kapp's deploy
// still deletes the live objects in the old one: they are pending deletes, named with the
// creates (newcomer walkthrough 6, N6-5). Old code: the app's kapp.k14s.io/app came from the
// paired live objects alone, none, so only the creates were reported.
func TestEveryObjectMovedIsDeletedFromTheOldNamespace(t *testing.T) {
	in := fixture("services")
	in.Desired = []string{editedFixture(t, in.Desired[0], func(u *unstructured.Unstructured) bool {
		u.SetNamespace("web")
		return true
	})}
	in.Namespace = ""
	ch, err := generator.Check(in, nil)
	if err != nil {
		t.Fatal(err)
	}
	var deleted []string
	for _, d := range ch.PendingDeletes {
		deleted = append(deleted, d.Resource.Namespace+"/"+d.Resource.Name)
	}
	slices.Sort(deleted)
	if want := []string{"services/web", "services/web-lb", "services/web-nodeport"}; !slices.Equal(deleted, want) {
		t.Errorf("pending deletes %v, want %v (the three live Services, kapp's, in namespace services)", deleted, want)
	}
}
