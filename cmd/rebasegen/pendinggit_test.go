package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// Regression (newcomer15 N15-1, issue 24): a pull request adding an object (a pending create) or
// removing one (a pending delete) failed check, exit 3, with no flag to let it through, in the
// README's CI setup (live objects captured once) every such pull request. They are changes made in
// Git: warnings, exit 0, in every format; --fail-on-create and --fail-on-delete fail them. A
// pending create whose object is live in another namespace (a wrong -n) still fails.
func TestCheckPendingCreatesAndDeletesAreChangesFromGit(t *testing.T) {
	fix := scenario(t, "hpa-replicas")
	dir := t.TempDir()
	rules := filepath.Join(dir, "rules.yml")
	if r := rebasegen(t, append([]string{"generate", "--quiet", "--output-file", rules}, fix...)...); r.code != 0 {
		t.Fatalf("generate: exit %d\n%s", r.code, r.stderr)
	}
	data, err := os.ReadFile(fix[1])
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// jsonOf is the severities of the findings of key in check's JSON
	jsonOf := func(out, key string) []string {
		var j map[string]json.RawMessage
		var fs []struct{ Severity string }
		if err := json.Unmarshal([]byte(out), &j); err != nil {
			t.Fatalf("json: %v\n%s", err, out)
		}
		if err := json.Unmarshal(j[key], &fs); err != nil {
			t.Fatalf("json %s: %v\n%s", key, err, out)
		}
		var s []string
		for _, f := range fs {
			s = append(s, f.Severity)
		}
		return s
	}

	added := write("added.yaml", string(data)+"---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: added\ndata:\n  a: b\n")
	create := "pending create, not compared: core/ConfigMap hpa-replicas/added: no live counterpart: a change made in Git, kapp creates it on deploy;"
	for _, tc := range []struct {
		flag  string
		code  int
		level string
	}{{"", 0, "warning"}, {"--fail-on-create", exitPending, "error"}, {"--fail-on-delete", 0, "warning"}} {
		args := []string{"check", "-r", rules, "-d", added, "-l", fix[3], "-n", fix[5]}
		if tc.flag != "" {
			args = append(args, tc.flag)
		}
		r := rebasegen(t, args...)
		out := strings.Join(strings.Fields(r.stdout), " ")
		if r.code != tc.code || !strings.Contains(out, create) || !strings.Contains(out, "after the deploy, capture the live objects again") ||
			!strings.Contains(out, "1 pending create;") {
			t.Errorf("added ConfigMap %s: exit %d, want %d and the pending create:\n%s%s", tc.flag, r.code, tc.code, r.stdout, r.stderr)
		}
		r = rebasegen(t, append(args, "-o", "github")...)
		if !strings.Contains(r.stdout, "::"+tc.level+" file="+added+",line=") || r.code != tc.code {
			t.Errorf("added ConfigMap %s, github: exit %d, want %d and a %s:\n%s", tc.flag, r.code, tc.code, tc.level, r.stdout)
		}
		r = rebasegen(t, append(args, "-o", "json")...)
		if got := jsonOf(r.stdout, "pendingCreates"); !slices.Equal(got, []string{tc.level}) || r.code != tc.code {
			t.Errorf("added ConfigMap %s, json: exit %d, severities %v, want %d and [%s]", tc.flag, r.code, got, tc.code, tc.level)
		}
	}

	// the HPA removed: the rules generated for it select it alone (read from the file by hand:
	// those whose matchers name the HorizontalPodAutoscaler kind and no other)
	removed := write("removed.yaml", strings.SplitN(string(data), "\n---\n", 2)[0]+"\n")
	rulesData, err := os.ReadFile(rules)
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		RebaseRules []struct{ ResourceMatchers any } `json:"rebaseRules"`
	}
	if err := yaml.Unmarshal(rulesData, &cfg); err != nil {
		t.Fatal(err)
	}
	var alone []string
	for i, r := range cfg.RebaseRules {
		m := fmt.Sprint(r.ResourceMatchers)
		if strings.Contains(m, "kind:HorizontalPodAutoscaler") && strings.Count(m, "kind:") == 1 {
			alone = append(alone, fmt.Sprintf("rebaseRules[%d]", i))
		}
	}
	if len(alone) > 4 { // the evidence names three and counts the rest
		alone = alone[:3]
	}
	if len(alone) == 0 {
		t.Fatalf("no rule of %s selects the HorizontalPodAutoscaler alone:\n%s", rules, rulesData)
	}
	del := "pending delete: autoscaling/HorizontalPodAutoscaler hpa-replicas/web: a live object of the app"
	for _, tc := range []struct {
		flag  string
		code  int
		level string
	}{{"", 0, "warning"}, {"--fail-on-delete", exitPending, "error"}, {"--fail-on-create", 0, "warning"}} {
		args := []string{"check", "-r", rules, "-d", removed, "-l", fix[3], "-n", fix[5]}
		if tc.flag != "" {
			args = append(args, tc.flag)
		}
		r := rebasegen(t, args...)
		out := strings.Join(strings.Fields(r.stdout), " ")
		_, named, _ := strings.Cut(out, "can go once the deploy deleted it")
		var got []string
		for _, part := range strings.Split(named, "; ") {
			if i := strings.Index(part, "rebaseRules["); i >= 0 {
				got = append(got, strings.Fields(part[i:])[0])
			}
		}
		if r.code != tc.code || !strings.Contains(out, del) || !strings.Contains(out, "a change made in Git, kapp deletes it on deploy") ||
			!strings.Contains(out, "1 pending delete;") || !slices.Equal(got, alone) {
			t.Errorf("removed HPA %s: exit %d, want %d, the pending delete and the rules %v (got %v):\n%s%s", tc.flag, r.code, tc.code, alone, got, r.stdout, r.stderr)
		}
		r = rebasegen(t, append(args, "-o", "json")...)
		if got := jsonOf(r.stdout, "pendingDeletes"); !slices.Equal(got, []string{tc.level}) || r.code != tc.code {
			t.Errorf("removed HPA %s, json: exit %d, severities %v, want %d and [%s]", tc.flag, r.code, got, tc.code, tc.level)
		}
	}

	// a wrong -n: the objects are live in another namespace, not created in Git
	r := rebasegen(t, "check", "-r", rules, "-d", fix[1], "-l", fix[3], "-n", "other", "-o", "json")
	if got := jsonOf(r.stdout, "pendingCreates"); r.code != exitPending || !slices.Equal(got, []string{"error", "error"}) {
		t.Errorf("-n other: exit %d, severities %v, want 3 and two errors\n%s", r.code, got, r.stdout)
	}
}
