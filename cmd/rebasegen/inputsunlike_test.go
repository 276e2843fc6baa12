package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// check run without the --values its rules were generated with: the package renders its schema's
// empty image, which the API server refuses (right), and every format says beside the refusal
// that the rules' Regenerate line records --values this check lacks; an input error of such a
// run (the schema refusing the empty image when rendered) says so below the error, and no data
// value given only to this run is printed (it may be a Secret's). Before, nothing said why
// (newcomer16 N16-5 d: "image: Required value", and no word of the Regenerate line's --values).
func TestCheckSaysItsInputsDifferFromTheRegenerateLine(t *testing.T) {
	dir := t.TempDir()
	config, values := copyPackage(t, dir)
	schema := filepath.Join(config, "schema.yml")
	write := func(text string) {
		if err := os.WriteFile(schema, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("#@data/values-schema\n---\nname: web\nimage: \"\"\nreplicas: 1\nautoscaling:\n  min: 2\n  max: 5\n")
	fix := scenario(t, "hpa-replicas")
	rules := filepath.Join(dir, "rules.yml")
	if r := rebasegen(t, "generate", "--package", config, "--values", values, "-l", fix[3], "-n", fix[5], "--output-file", rules); r.code != 0 {
		t.Fatalf("generate: exit %d\n%s", r.code, r.stderr)
	}
	note := "this check's inputs differ from those " + rules + " was generated with (its Regenerate line): --values " + values + " (Regenerate line only)"
	args := []string{"check", "--package", config, "-l", fix[3], "-n", fix[5], "-r", rules}
	for _, out := range []string{"text", "json", "github"} {
		r := rebasegen(t, append(args, "-o", out)...)
		var refusal string
		for _, l := range strings.Split(r.stdout, "\n") {
			if strings.Contains(l, "Required value") {
				refusal = l
			}
		}
		if r.code != exitPending || !strings.Contains(refusal, note) {
			t.Errorf("-o %s: exit %d, the refusal %q\nwant exit 3 and it saying %q\n%s%s", out, r.code, refusal, note, r.stdout, r.stderr)
		}
	}
	if r := rebasegen(t, append(args, "--values", values)...); r.code != 0 || strings.Contains(r.stdout, "Regenerate line") {
		t.Errorf("with the inputs of the Regenerate line: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	write("#@data/values-schema\n---\nname: web\n#@schema/validation min_len=1\nimage: \"\"\nreplicas: 1\nautoscaling:\n  min: 2\n  max: 5\n")
	r := rebasegen(t, append(args, "--value", "name=s3cret")...)
	if r.code != exitError || !strings.Contains(r.stderr, "rendering package") || !strings.Contains(r.stderr, "\n"+note+"\n") || r.stdout != "" {
		t.Errorf("the package's schema refusing the empty image: exit %d\nstdout:\n%s\nstderr:\n%s\nwant exit 1, nothing on stdout, the error and below it %q", r.code, r.stdout, r.stderr, note)
	}
	if strings.Contains(r.stderr, "s3cret") {
		t.Errorf("a data value given only to this check printed:\n%s", r.stderr)
	}
}
