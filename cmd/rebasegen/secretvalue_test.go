package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A data value given on the command line that the package renders into a Secret is recorded in
// the generated file's Regenerate line as redacted, never as itself (the file is committed); one
// rendered elsewhere is recorded as given; one a Secret holds only transformed is redacted too (probe6
// finding 6: upper-cased, it was written in clear). check, given the same values, finds the file current
// and quotes no value either.
func TestRegenerateLineRecordsNoSecretValue(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	pkg := filepath.Dir(write("pkg/config.yml", `#@ load("@ytt:data", "data")
apiVersion: v1
kind: Secret
metadata: {name: db, namespace: demo}
stringData:
  password: #@ data.values.password
  token: #@ "Bearer " + data.values.token
  salted: #@ data.values.salt.upper()
---
apiVersion: v1
kind: ConfigMap
metadata: {name: greeting, namespace: demo}
data:
  text: #@ data.values.greeting
`))
	write("pkg/values.yml", "#@data/values\n---\npassword: \"\"\ntoken: \"\"\nsalt: \"\"\ngreeting: \"\"\n")
	live := write("live.yaml", `apiVersion: v1
kind: ConfigMap
metadata: {name: greeting, namespace: demo, uid: 0b0b0b0b-0000-0000-0000-000000000002}
data: {text: hello}
`)
	rules := filepath.Join(dir, "rules.yml")
	values := []string{"--value", "password=S3CRETPASSWORD", "--value-yaml", `token="T0KENVALUE"`, "--value", "greeting=hello", "--value", "salt=pepperSALT"}
	gen := rebasegen(t, append([]string{"generate", "--package", pkg, "-l", live, "--output-file", rules, "--force"}, values...)...)
	if gen.code != 0 { // kapp's labels on the ConfigMap it adopts are adoption changes: verified
		t.Fatalf("generate: exit %d\n%s", gen.code, gen.stderr)
	}
	text, err := os.ReadFile(rules)
	if err != nil {
		t.Fatal(err)
	}
	header := strings.SplitN(string(text), "\n", 3)[1]
	for _, want := range []string{"'password=<redacted: a Secret'\\''s value>'", "'token=<redacted: a Secret'\\''s value>'", "--value greeting=hello", "'salt=<redacted: a Secret'\\''s value>'"} {
		if !strings.Contains(header, want) {
			t.Errorf("Regenerate line %q lacks %q", header, want)
		}
	}
	chk := rebasegen(t, append([]string{"check", "--package", pkg, "-l", live, "--rules", rules}, values...)...)
	if !strings.Contains(chk.stdout+chk.stderr, " 0 stale generated files") || chk.code == 1 {
		t.Errorf("check: exit %d\n%s%s", chk.code, chk.stdout, chk.stderr)
	}
	for _, out := range []string{string(text), gen.stderr, chk.stdout, chk.stderr} {
		for _, secret := range []string{"S3CRETPASSWORD", "T0KENVALUE", "pepperSALT", "PEPPERSALT"} {
			if strings.Contains(out, secret) {
				t.Errorf("output holds the Secret value %s:\n%s", secret, out)
			}
		}
	}
}
