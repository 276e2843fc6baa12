package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// fixtures/create-strategies' live PersistentVolumeClaim holds spec.dataSourceRef.apiGroup: null,
// which its manifest leaves out: explain shows the null, in text and in JSON, not "no value" on
// both sides, which reads as no difference (newcomer8 N8-11).
func TestExplainShowsALiveNull(t *testing.T) {
	in := scenario(t, "create-strategies")
	path := "spec.dataSourceRef.apiGroup"
	r := rebasegen(t, append([]string{"explain"}, in...)...)
	if r.code != 0 || !regexp.MustCompile(regexp.QuoteMeta(path)+`\s+defaulted\s+- -> null\s`).MatchString(r.stdout) {
		t.Errorf("text: exit %d, no '- -> null' row for %s:\n%s", r.code, path, r.stdout)
	}
	r = rebasegen(t, append([]string{"explain", "-o", "json"}, in...)...)
	var j struct {
		Resources []struct {
			Kind   string
			Fields []map[string]json.RawMessage
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &j); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, res := range j.Resources {
		for _, f := range res.Fields {
			if string(f["path"]) != `"`+path+`"` {
				continue
			}
			found = true
			live, ok := f["live"]
			if _, desired := f["desired"]; !ok || strings.TrimSpace(string(live)) != "null" || desired {
				t.Errorf("json: %s: live %q (present %v), desired present %v; want live null, no desired", path, live, ok, desired)
			}
		}
	}
	if !found {
		t.Errorf("json: no finding at %s", path)
	}
}
