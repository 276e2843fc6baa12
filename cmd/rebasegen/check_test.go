package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/generator/verdict"
	"github.com/rebasegen/rebasegen/internal/format"
)

// Every output format renders every kind of finding check has (issue 24 item 3), failing or
// not: a kind added to verdict.Kinds without a renderer in a format fails here. The github
// format's annotation carries the evidence the text format shows, escaped as a workflow command's
// data (newcomer15 N15-3: a drift the rules keep read, in CI, as one kapp reverts).
func TestCheckRendersEveryKindInEveryFormat(t *testing.T) {
	const ev = "kept by rules.yml:12, document 1, rebaseRules[5] (copy): kapp will NOT revert it; 100% sure"
	const escaped = "kept by rules.yml:12, document 1, rebaseRules[5] (copy): kapp will NOT revert it; 100%25 sure"
	for _, k := range verdict.Kinds() {
		for _, fails := range []bool{true, false} {
			marker := "marker-" + string(k)
			ev, escaped := ev, escaped
			if k == verdict.KindServerVersion {
				ev, escaped = marker, marker // a finding about the whole run: its sentence is all it says
			}
			f := verdict.Finding{Kind: k, Resource: pair.Identity{Kind: "ConfigMap", Namespace: "ns", Name: marker}, Path: "data.x",
				Class: "c", Evidence: ev, File: marker + ".yml", Line: 7, Diff: "-a\n+b\n", Fails: fails}
			res := &generator.Checked{Verdict: &verdict.Verdict{}}
			for _, of := range format.Report() {
				var out strings.Builder
				if err := writeCheck(&out, of, res, []string{"rules.yml"}, []verdict.Finding{f}); err != nil {
					t.Errorf("%s, %s: %v", k, of, err)
					continue
				}
				got := out.String()
				if !strings.Contains(got, marker) {
					t.Errorf("%s (fails %v), %s: the finding is not in the output:\n%s", k, fails, of, got)
				}
				switch of {
				case "github":
					level := "::warning"
					if fails {
						level = "::error"
					}
					level += " " // at a file
					if k == verdict.KindServerVersion || k == verdict.KindPendingDelete {
						level = level[:len(level)-1] + "::" // the job's log: no file caused it
					}
					// and the summary, one ::notice:: line
					if !strings.HasPrefix(got, level) || strings.Count(got, "\n") != 2 || !strings.Contains(got, "\n::notice::check: ") {
						t.Errorf("%s (fails %v): want one %s annotation, got:\n%s", k, fails, level, got)
					}
					if annotation, _, _ := strings.Cut(got, "\n"); !strings.HasSuffix(annotation, ": "+escaped) {
						t.Errorf("%s (fails %v): the annotation does not end with the evidence %q:\n%s", k, fails, escaped, annotation)
					}
				case "json":
					var j map[string]any
					if err := json.Unmarshal([]byte(got), &j); err != nil {
						t.Fatalf("%s: %v", k, err)
					}
					// the finding's file and line are the github annotation's own place (issue 24: JSON
					// carried none for drift, pending changes and creates), never the rules file
					// github falls back on
					var gh strings.Builder
					if err := writeCheck(&gh, format.GitHub, res, []string{"rules.yml"}, []verdict.Finding{f}); err != nil {
						t.Fatal(err)
					}
					placed := strings.Contains(gh.String(), " file="+marker+".yml,line=7::")
					n := 0
					for _, v := range j {
						if list, ok := v.([]any); ok {
							n += len(list)
							for _, e := range list {
								e, _ := e.(map[string]any)
								if at := e["file"] == marker+".yml" && e["line"] == 7.0; at != placed || !at && (e["file"] != nil || e["line"] != nil) {
									t.Errorf("%s (fails %v): JSON's file and line %v:%v, github's annotation placed at them %v:\n%s", k, fails, e["file"], e["line"], placed, got)
								}
							}
						}
					}
					if n != 1 {
						t.Errorf("%s: want the finding once in the JSON's lists, got %d:\n%s", k, n, got)
					}
				}
			}
		}
	}
}

// Checked.Findings yields every kind of Kinds, and only those.
func TestCheckedFindingsCoverEveryKind(t *testing.T) {
	id := pair.Identity{Kind: "ConfigMap", Namespace: "ns", Name: "a"}
	data := "data"
	field := []verdict.Residual{{Resource: id, Finding: classify.Finding{Path: fielddiff.Path{{FieldName: &data}}}}}
	blocked := append(field, verdict.Residual{Resource: id, Finding: classify.Finding{Path: fielddiff.Path{{FieldName: &data}}, Blocks: true}})
	unserved := append(field, verdict.Residual{Resource: id, Finding: classify.Finding{Path: fielddiff.Path{{FieldName: &data}}, Unserved: true}})
	res := &generator.Checked{Verdict: &verdict.Verdict{Residual: field, Unknown: field, Drift: unserved, Adoption: field, Pending: blocked, PendingDeletes: []verdict.PendingDelete{{Resource: id}},
		Hidden: []verdict.Hidden{{Resource: id, Path: "data"}}, Unpaired: []verdict.Unpaired{{Resource: id}},
		Stale: []verdict.Stale{{File: "rules.yml", Line: 1}}, Unjudged: []verdict.Unjudged{{Resource: id, Keys: []string{"k"}}}, RulesUnjudged: []verdict.RuleUnjudged{{Resource: id, Path: "existing data.k", Why: "why"}},
		Ownership:   []verdict.Ownership{{Resource: id, Label: "b", App: "a"}},
		DeployFails: []verdict.DeployFails{{Resource: id, Reason: "kapp says"}}}, VersionWarning: "no defaults data"}
	got := map[verdict.Kind]bool{}
	for _, f := range res.Findings(verdict.Gate{}) {
		got[f.Kind] = true
	}
	for _, k := range verdict.Kinds() {
		if !got[k] {
			t.Errorf("kind %s: no finding of it from a Checked holding one of each", k)
		}
		delete(got, k)
	}
	if len(got) > 0 {
		t.Errorf("kinds not listed in verdict.Kinds: %v", got)
	}
}

// everyKindVerdict is a verdict holding a finding of every kind (but the server version's, which
// is not the verdict's).
func everyKindVerdict() *verdict.Verdict {
	id := pair.Identity{Kind: "ConfigMap", Namespace: "ns", Name: "a"}
	data := "data"
	field := []verdict.Residual{{Resource: id, Finding: classify.Finding{Path: fielddiff.Path{{FieldName: &data}}, Evidence: "why"}}}
	blocked := append(field, verdict.Residual{Resource: id, Finding: classify.Finding{Path: fielddiff.Path{{FieldName: &data}}, Evidence: "why", Blocks: true}})
	unserved := append(field, verdict.Residual{Resource: id, Finding: classify.Finding{Path: fielddiff.Path{{FieldName: &data}}, Evidence: "why", Unserved: true}})
	return &verdict.Verdict{Residual: field, Unknown: field, Drift: unserved, Adoption: field, Pending: blocked, PendingDeletes: []verdict.PendingDelete{{Resource: id}},
		Hidden: []verdict.Hidden{{Resource: id, Path: "data"}}, Unpaired: []verdict.Unpaired{{Resource: id}},
		Stale: []verdict.Stale{{File: "gen.yml", Line: 3, Diff: "-a\n+b\n"}}, Unjudged: []verdict.Unjudged{{Resource: id, Keys: []string{"k"}}}, RulesUnjudged: []verdict.RuleUnjudged{{Resource: id, Path: "existing data.k", Why: "why"}},
		Ownership:   []verdict.Ownership{{Resource: id, Label: "b", App: "a"}},
		DeployFails: []verdict.DeployFails{{Resource: id, Reason: "kapp says"}}}
}

// showsEveryKind checks that got, a report in format of holding a finding of every kind, shows
// each under its label (text, github) or its JSON key.
func showsEveryKind(t *testing.T, of format.Format, got string) {
	t.Helper()
	jsonKey := map[verdict.Kind]string{ // README's schema, independent of the renderer
		verdict.KindResidual: "residual", verdict.KindPendingCreate: "pendingCreates", verdict.KindPendingDelete: "pendingDeletes",
		verdict.KindUnknown: "unknown", verdict.KindHidden: "hidden", verdict.KindImmutable: "immutable", verdict.KindStale: "stale",
		verdict.KindDrift: "drift", verdict.KindPending: "pending", verdict.KindAdoption: "adoption", verdict.KindServerVersion: "serverVersion",
		verdict.KindUnjudged: "unjudged", verdict.KindRuleUnjudged: "rulesUnjudged", verdict.KindOwnership: "ownership", verdict.KindDeployFails: "deployFails",
		verdict.KindUnserved: "unserved",
	}
	for _, k := range verdict.Kinds() {
		switch of {
		case format.JSON:
			var j map[string]json.RawMessage
			if err := json.Unmarshal([]byte(got), &j); err != nil {
				t.Fatal(err)
			}
			var list []any
			if key, ok := jsonKey[k]; !ok || json.Unmarshal(j[key], &list) != nil || len(list) != 1 {
				t.Errorf("json: kind %s: want one entry under %q, got %s", k, jsonKey[k], j[jsonKey[k]])
			}
		case format.GitHub:
			if !strings.Contains(got, "::"+k.Label()+": ") {
				t.Errorf("github: kind %s: no annotation starting %q:\n%s", k, k.Label()+": ", got)
			}
		default:
			if !strings.Contains("\n"+got, "\n"+k.Label()+": ") && !strings.Contains(got, "warning: "+k.Label()+": ") {
				t.Errorf("text: kind %s: no line starting %q:\n%s", k, k.Label()+": ", got)
			}
		}
	}
}

// A check result holding a finding of every kind, rendered in every format, shows each kind under
// its label (text, github) or its JSON key: what one kind is called is the same everywhere, and
// a format that drops a kind fails here.
func TestCheckResultWithEveryKindInEveryFormat(t *testing.T) {
	res := &generator.Checked{Verdict: everyKindVerdict(), VersionWarning: "no defaults data"}
	fs := res.Findings(verdict.Gate{})
	labels := map[string]verdict.Kind{}
	for _, k := range verdict.Kinds() {
		l := k.Label()
		if l == "" || labels[l] != "" {
			t.Errorf("kind %s: label %q is empty or another kind's", k, l)
		}
		labels[l] = k
	}
	for _, of := range format.Report() {
		var out strings.Builder
		if err := writeCheck(&out, of, res, []string{"rules.yml"}, fs); err != nil {
			t.Fatalf("%s: %v", of, err)
		}
		showsEveryKind(t, of, out.String())
	}
}

// Regression (issue 24 item 3): check --fail-on-adoption --output github exited 3 with no output
// at all; the adoption changes are annotations, errors with the flag and warnings without.
func TestCheckAdoptionInEveryFormat(t *testing.T) {
	fix := scenario(t, "adoption-view")
	rules := filepath.Join(t.TempDir(), "rules.yml")
	if r := rebasegen(t, append([]string{"generate", "--output-file", rules}, fix...)...); r.code != 0 {
		t.Fatalf("generate: exit %d: %s", r.code, r.stderr)
	}
	for _, c := range []struct {
		flags []string
		code  int
		level string
	}{{[]string{"--fail-on-adoption"}, exitPending, "error"}, {nil, 0, "warning"}} {
		args := append(append([]string{"check", "--rules", rules}, fix...), c.flags...)
		r := rebasegen(t, append(args, "--output", "github")...)
		want := "::" + c.level + " file=" + rules + ",line=1::adoption (kapp changes it once, when it takes the object over): core/Service adoption-view/web metadata.labels[\"app.kubernetes.io/managed-by\"]"
		// 4 of the earlier tools' bookkeeping, 7 of kapp's labels its first deploy writes (each
		// object's app and association labels, the pod template's, the Service's selector's app)
		if r.code != c.code || strings.Count(r.stdout, "::"+c.level+" ") != 11 || !strings.Contains(r.stdout, want) {
			t.Errorf("%v --output github: want exit %d and 11 adoption %ss, got %d:\n%s%s", c.flags, c.code, c.level, r.code, r.stdout, r.stderr)
		}
		r = rebasegen(t, append(args, "--output", "json")...)
		var j struct{ Adoption []fieldJSON }
		if err := json.Unmarshal([]byte(r.stdout), &j); err != nil || r.code != c.code || len(j.Adoption) != 11 || j.Adoption[0].Severity != c.level {
			t.Errorf("%v --output json: want exit %d and 11 adoption %ss, got %d (%v):\n%s", c.flags, c.code, c.level, r.code, err, r.stdout)
		}
	}
}

// The JSON of check as tests read it back.
type fieldJSON = verdict.FieldJSON
