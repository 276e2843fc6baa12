package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Regression (newcomer walkthrough 4, item 7): a Secret whose values rebasegen capture redacted
// was counted among the resources kapp keeps ("kapp keeps 14/14"), though its values, taken as
// the manifest's, were never compared: a changed password passed as clean. It is "not judged"
// in every format (JSON: unjudged), and kept counts one resource fewer than for the same
// objects unredacted (the oracle: the fixture as the cluster returned it).
func TestRedactedSecretIsNotCountedAsKept(t *testing.T) {
	fix := scenario(t, "package-app")
	dir := t.TempDir()
	rules := filepath.Join(dir, "rules.yml")
	if r := rebasegen(t, append([]string{"generate", "--output-file", rules}, fix...)...); r.code != 0 {
		t.Fatalf("generate: exit %d: %s", r.code, r.stderr)
	}
	bs, err := os.ReadFile(fix[3])
	if err != nil {
		t.Fatal(err)
	}
	// as rebasegen capture writes a Secret: every value, in data and in kapp's copy of what it
	// applied (whose stringData it moves into data), the placeholder
	const placeholder = "cmViYXNlZ2VuLXJlZGFjdGVk" // base64 of rebasegen-redacted
	live := string(bs)
	for old, redacted := range map[string]string{
		"  password: bm90LWEtcmVhbC1wYXNzd29yZA==\n  username: c2hvcA==\n":  "  password: " + placeholder + "\n  username: " + placeholder + "\n",
		`"stringData":{"password":"not-a-real-password","username":"shop"}`: `"data":{"password":"` + placeholder + `","username":"` + placeholder + `"}`,
	} {
		if !strings.Contains(live, old) {
			t.Fatalf("package-app's Secret changed: %q not in its live objects", old)
		}
		live = strings.Replace(live, old, redacted, 1)
	}
	redactedLive := filepath.Join(dir, "live.yaml")
	if err := os.WriteFile(redactedLive, []byte(live), 0o644); err != nil {
		t.Fatal(err)
	}
	check := func(live string, flags ...string) result {
		return rebasegen(t, append([]string{"check", "--rules", rules, "-d", fix[1], "-l", live, "-n", "package-app"}, flags...)...)
	}
	type counts struct {
		Paired, Kept int
		Unjudged     []fieldJSON
	}
	read := func(r result) counts {
		var c counts
		if err := json.Unmarshal([]byte(r.stdout), &c); err != nil {
			t.Fatalf("check's JSON: %v:\n%s", err, r.stdout)
		}
		return c
	}
	base := check(fix[3], "--output", "json")
	want := read(base)
	if len(want.Unjudged) != 0 || want.Kept == 0 {
		t.Fatalf("unredacted: want resources kept and none unjudged, got %+v", want)
	}
	res := check(redactedLive, "--output", "json")
	got := read(res)
	if res.code != base.code || got.Paired != want.Paired || got.Kept != want.Kept-1 || len(got.Unjudged) != 1 || got.Unjudged[0].Resource != "core/Secret package-app/shop-db" {
		t.Errorf("redacted: exit %d, paired %d, kept %d, unjudged %+v; want exit %d, paired %d, kept %d and the Secret unjudged",
			res.code, got.Paired, got.Kept, got.Unjudged, base.code, want.Paired, want.Kept-1)
	}
	const label = "not judged (Secret values redacted at capture): core/Secret package-app/shop-db"
	if res := check(redactedLive); res.code != base.code || !strings.Contains(res.stdout, label+": ") || !strings.Contains(res.stdout, ", 1 not judged") {
		t.Errorf("text: exit %d, want %d, %q and the count in the summary:\n%s", res.code, base.code, label, res.stdout)
	}
	if res := check(redactedLive, "--output", "github"); res.code != base.code || !strings.Contains(res.stdout, "::warning file="+fix[1]) || !strings.Contains(res.stdout, label) {
		t.Errorf("github: exit %d, want %d and a warning %q:\n%s", res.code, base.code, label, res.stdout)
	}
	for _, secret := range []string{"not-a-real-password", "bm90LWEtcmVhbC1wYXNzd29yZA==", placeholder} {
		if r := check(redactedLive); strings.Contains(r.stdout+r.stderr, secret) {
			t.Errorf("a Secret value in the output: %q", secret)
		}
	}
}
