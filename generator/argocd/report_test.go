package argocd_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator/argocd"
	"github.com/rebasegen/rebasegen/generator/lint"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/generator/verdict"
	"github.com/rebasegen/rebasegen/internal/format"
)

// Every kind of finding the Argo CD target makes appears in every format check writes: in text
// and github under its kind's label, in JSON in the array check's kapp target uses for it; and a
// lint finding in each.
func TestEveryFindingKindInEveryFormat(t *testing.T) {
	id := pair.Identity{Group: "apps", Kind: "Deployment", Namespace: "ns", Name: "web"}
	left := []argocd.Left{
		{Resource: id, Path: "spec.a", Kind: verdict.KindUnknown, Reason: "nothing rebasegen classified explains it"},
		{Resource: id, Path: "spec.b", Class: "drift", Kind: verdict.KindDrift, Reason: "class drift (never ignored)"},
		{Resource: id, Path: "spec.c", Class: "pending", Kind: verdict.KindPending, Reason: "class pending (never ignored)"},
		{Resource: id, Path: "spec.d", Class: "adoption", Kind: verdict.KindAdoption, Reason: "class adoption (never ignored)"},
	}
	v := argocd.Verification{Ghost: 1, OutSync: []argocd.Problem{{Resource: id, Path: "spec.e", Class: "defaulted"}},
		Hidden: []argocd.Problem{{Resource: id, Path: "spec.f"}}, Mutation: 3}
	fs := argocd.Findings(left, v, nil, "the live objects come from Kubernetes v1.31.4")
	want := map[verdict.Kind]string{ // kind: its JSON array
		verdict.KindServerVersion: "serverVersion", verdict.KindResidual: "residual", verdict.KindUnknown: "unknown",
		verdict.KindHidden: "hidden", verdict.KindDrift: "drift", verdict.KindPending: "pending", verdict.KindAdoption: "adoption",
	}
	if len(fs) != len(want) {
		t.Fatalf("%d findings, want one of each of %d kinds: %+v", len(fs), len(want), fs)
	}
	r := argocd.Report{Summary: "summary line", Findings: fs, Verification: v,
		Lints: []lint.Finding{{Severity: lint.Warning, File: "app.yml", Line: 3, Rule: -1, Message: "a lint"}}}
	for _, f := range format.Report() {
		var b bytes.Buffer
		if err := r.Write(&b, f, "app.yml"); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out := b.String()
		if f == format.JSON {
			var j map[string]any
			if err := json.Unmarshal(b.Bytes(), &j); err != nil {
				t.Fatalf("json: %v", err)
			}
			for k, key := range want {
				if l, _ := j[key].([]any); len(l) != 1 {
					t.Errorf("json: %s: %q holds %v, want its finding", k, key, j[key])
				}
			}
			if l, _ := j["lint"].([]any); len(l) != 1 {
				t.Errorf("json: lint %v", j["lint"])
			}
			continue
		}
		for k := range want {
			label := k.Label()
			switch k { // Argo CD syncs it, not kapp
			case verdict.KindPending:
				label = "pending change from Git (Argo CD syncs it)"
			case verdict.KindAdoption:
				label = "adoption (another tool's bookkeeping on an object Argo CD took over)"
			}
			if !strings.Contains(out, label+": ") {
				t.Errorf("%s: no finding labelled %q:\n%s", f, label, out)
			}
		}
		if strings.Contains(out, "kapp applies it") || strings.Contains(out, "kapp changes it") {
			t.Errorf("%s: a kapp label on the argocd target:\n%s", f, out)
		}
		if !strings.Contains(out, "a lint") || !strings.Contains(out, "summary line") {
			t.Errorf("%s: the lint finding or the summary is missing:\n%s", f, out)
		}
	}
}
