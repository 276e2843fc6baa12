package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A Secret manifest whose values sit under a field the API server does not know (a misspelt
// stringData, a capitalised Data) still holds secret values: explain, check and generate show none
// of them in any format.
func TestSecretValuesUnderAnUnknownFieldAreNotShown(t *testing.T) {
	const secret = "hunter2XYZ"
	fixture := filepath.Join("..", "..", "fixtures", "secret-empty-values")
	bs, err := os.ReadFile(filepath.Join(fixture, "desired.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	live := filepath.Join(fixture, "live.yaml")
	for _, field := range []string{"stringdata", "Data", "strinData", "password"} {
		desired := filepath.Join(t.TempDir(), "desired.yaml")
		typo := "\n" + field + ":\n  password: " + secret + "\n"
		if field == "password" {
			typo = "\npassword: " + secret + "\n"
		}
		if err := os.WriteFile(desired, append(bs, typo...), 0o644); err != nil {
			t.Fatal(err)
		}
		runs := [][]string{
			{"explain", "-d", desired, "-l", live, "-n", "secret-empty-values"},
			{"explain", "--wide", "-d", desired, "-l", live, "-n", "secret-empty-values"},
			{"explain", "-o", "json", "-d", desired, "-l", live, "-n", "secret-empty-values"},
			{"generate", "-d", desired, "-l", live, "-n", "secret-empty-values"},
		}
		for _, args := range runs {
			r := rebasegen(t, args...)
			if r.code > 3 {
				t.Fatalf("%s: %v: exit %d\n%s", field, args[:len(args)-6], r.code, r.stderr)
			}
			if strings.Contains(r.stdout+r.stderr, secret) {
				t.Errorf("%s: %v shows the value:\n%s%s", field, args[:len(args)-6], r.stdout, r.stderr)
			}
		}
		r := rebasegen(t, "explain", "-d", desired, "-l", live, "-n", "secret-empty-values")
		if !strings.Contains(r.stdout, field) {
			t.Errorf("%s: explain does not name the field:\n%s", field, r.stdout)
		}
	}
}
