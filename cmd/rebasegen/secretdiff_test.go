package main

import (
	"encoding/base64"
	"path/filepath"
	"strings"
	"testing"
)

// A hand-written ytt rule computing a data key, a label, an annotation or the type of a Secret
// from a live data value put that value into check's kapp diff text, in text and JSON: kapp's
// diff masks a Secret's values, not its keys nor the fields outside data and stringData (probe7
// D2: "4 +   kT0kenLiveXYZ: <-- value not shown (#2)"). No form of the value reaches any output;
// the diff (text and JSON; github prints none) says a line was withheld.
func TestCheckSecretDiffShowsNoValueARuleWrote(t *testing.T) {
	const secret = "T0kenLiveXYZ"
	encoded := base64.StdEncoding.EncodeToString([]byte(secret))
	dir := t.TempDir()
	write := func(name, text string) string { return writeIn(t, dir, name, text) }
	read := func(name string) string {
		return readFile(t, filepath.Join("..", "..", "fixtures", "secret-empty-values", name))
	}
	// the manifest declares the live value, so kapp keeps the Secret with generated rules
	desired := write("desired.yaml", strings.Replace(read("desired.yaml"), "\ndata:\n", "\ndata:\n  token: "+encoded+"\n", 1))
	live := write("live.yaml", strings.Replace(read("live.yaml"), "\ndata:\n", "\ndata:\n  token: "+encoded+"\n", 1))
	if !strings.Contains(read("live.yaml"), "\ndata:\n") || !strings.Contains(read("desired.yaml"), "\ndata:\n") {
		t.Fatal("the fixture's Secret has no block data map")
	}
	rules := filepath.Join(dir, "rules.yml")
	if r := rebasegen(t, "generate", "-d", desired, "-l", live, "-n", "secret-empty-values", "--output-file", rules); r.code != 0 {
		t.Fatalf("generate: exit %d\n%s", r.code, r.stderr)
	}
	rule := func(body string) string {
		return `apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- ytt:
    overlayContractV1:
      overlay.yml: |
        #@ load("@ytt:data", "data")
        #@ load("@ytt:base64", "base64")
        #@ load("@ytt:overlay", "overlay")
` + body + `  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: v1, kind: Secret}
`
	}
	exfil := map[string]string{
		// the probe's rule: a data key
		"key.yml": rule(`        #@ def addkey(l, r):
        #@   m = dict(**l)
        #@   m["k" + base64.decode(data.values.existing.data.token)] = "eA=="
        #@   return m
        #@ end
        #@overlay/match by=overlay.all
        ---
        #@overlay/replace via=addkey
        data: {}
`),
		"fields.yml": rule(`        #@overlay/match by=overlay.all
        ---
        #@overlay/match missing_ok=True
        type: #@ "t" + base64.decode(data.values.existing.data.token)
        metadata:
          #@overlay/match missing_ok=True
          labels:
            #@overlay/match missing_ok=True
            leak: #@ "l" + data.values.existing.data.token
          #@overlay/match missing_ok=True
          annotations:
            #@overlay/match missing_ok=True
            #@yaml/text-templated-strings
            a(@= base64.decode(data.values.existing.data.token) @): "x"
`),
		// the rebased object no longer says Secret: withholding is decided by the manifest and
		// the live object, not by what the rules made of it (probe9 P9-2)
		"apiversion.yml": rule(`        #@overlay/match by=overlay.all
        ---
        apiVersion: #@ "k" + base64.decode(data.values.existing.data.token)
        #@overlay/match missing_ok=True
        zzz: #@ "k" + base64.decode(data.values.existing.data.token)
`),
	}
	for name, text := range exfil {
		hostile := write(name, text)
		for _, format := range []string{"text", "json", "github"} {
			r := rebasegen(t, "check", "-d", desired, "-l", live, "-n", "secret-empty-values", "--rules", rules, "--rules", hostile, "-o", format)
			if r.code != 3 {
				t.Errorf("%s -o %s: exit %d, want 3 (a ghost diff is left)\n%s%s", name, format, r.code, r.stdout, r.stderr)
			}
			for _, v := range []string{secret, encoded} {
				if strings.Contains(r.stdout+r.stderr, v) {
					t.Errorf("%s -o %s: the output holds the live Secret value %s:\n%s%s", name, format, v, r.stdout, r.stderr)
				}
			}
			if format != "github" && !strings.Contains(r.stdout+r.stderr, "line not shown: the rules wrote it into a Secret") {
				t.Errorf("%s -o %s: no withheld line in the diff:\n%s%s", name, format, r.stdout, r.stderr)
			}
		}
	}
}
