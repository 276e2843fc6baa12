package main

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/internal/format"
)

// A generated rules Secret holding keys an operator put beside the rules is stale (regenerating
// drops them), and the stale diff names those keys without their values, in every output format
// of check and lint (probe4 finding 8: the unified diff printed them).
func TestStaleSecretDiffShowsNoValues(t *testing.T) {
	in := scenario(t, "hpa-replicas")
	file := filepath.Join(t.TempDir(), "secret.yml")
	if r := rebasegen(t, append([]string{"generate"}, append(in, "--output", "secret", "--package-install", "hpa-replicas/web", "--output-file", file)...)...); r.code != 0 {
		t.Fatalf("generate: exit %d: %s", r.code, r.stderr)
	}
	generated, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	const password, token, cert = "SUPERSECRETPASSWORD42", "SUPERSECRETTOKEN42", "SUPERSECRETCERTLINE42"
	// after the rules: a header further down than its first lines is not rebasegen's
	text := string(generated) + "  token.txt: \"" + token + "\"\n  tls.crt: |\n    -----BEGIN-----\n    " + cert + "\n    -----END-----\n" +
		"data:\n  db-password: " + base64.StdEncoding.EncodeToString([]byte(password)) + "\n"
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	secrets := []string{password, base64.StdEncoding.EncodeToString([]byte(password)), token, cert}
	for _, of := range format.Report() {
		for _, cmd := range []string{"check", "lint"} {
			args := []string{cmd, "--rules", file, "--output", string(of)}
			if cmd == "check" {
				args = append(append([]string{cmd}, in...), args[1:]...)
			}
			r := rebasegen(t, args...)
			for _, s := range secrets {
				if strings.Contains(r.stdout+r.stderr, s) {
					t.Errorf("%s --output %s prints the Secret's value %q:\n%s%s", cmd, of, s, r.stdout, r.stderr)
				}
			}
			if cmd == "check" && of != format.GitHub {
				if r.code != 3 {
					t.Errorf("check --output %s: exit %d, want 3 (the file is stale)", of, r.code)
				}
				for _, key := range []string{"db-password", "token.txt", "tls.crt"} {
					if !strings.Contains(r.stdout, key) {
						t.Errorf("check --output %s: the stale diff does not name the key %s:\n%s", of, key, r.stdout)
					}
				}
			}
		}
	}
}
