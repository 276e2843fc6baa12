package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/internal/crddoc"
)

// TestCRDFromLiveOrFlag: a custom resource's CRD is used for schema defaulting whether it comes
// with --crd or among the --live inputs (capture saves it beside the live objects); when it is
// nowhere, the unexplained fields say which CRD to pass.
func TestCRDFromLiveOrFlag(t *testing.T) {
	dir := t.TempDir()
	split := func(file string) (crd, rest string) {
		data, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "crd-defaults", file))
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range strings.Split(string(data), "\n---\n") {
			if strings.Contains(doc, "\nkind: CustomResourceDefinition\n") {
				crd += "---\n" + doc + "\n"
			} else {
				rest += "---\n" + doc + "\n"
			}
		}
		return crd, rest
	}
	write := func(name, text string) string { return writeIn(t, dir, name, text) }
	_, desiredCR := split("desired.yaml")
	liveCRD, liveCR := split("live.yaml")
	d, l, crd := write("desired.yaml", desiredCR), write("live.yaml", liveCR), write("crds.yaml", liveCRD)
	explain := func(extra ...string) string {
		r := rebasegen(t, append([]string{"--quiet", "explain", "--wide", "--color", "never", "-d", d, "-l", l, "-n", "crd-defaults"}, extra...)...)
		if r.code != 0 {
			t.Fatalf("explain %v: exit %d, stderr:\n%s", extra, r.code, r.stderr)
		}
		return r.stdout
	}
	withFlag, amongLive, nowhere := explain("--crd", crd), explain("-l", crd), explain()
	if !strings.Contains(withFlag, "structural-schema defaulting of CRD backups.crd-defaults.rebasegen.dev") {
		t.Fatalf("--crd: no CRD defaulting:\n%s", withFlag)
	}
	backup := func(out string) string { // the Backup's classification, up to the blank line after it
		out = out[strings.Index(out, "crd-defaults.rebasegen.dev/Backup"):]
		return out[:strings.Index(out, "\n\n")]
	}
	if backup(amongLive) != backup(withFlag) {
		t.Errorf("the CRD among --live inputs classifies differently from --crd:\n%s\nwant:\n%s", backup(amongLive), backup(withFlag))
	}
	if !strings.Contains(nowhere, "no CustomResourceDefinition for Backup.crd-defaults.rebasegen.dev among the inputs (pass the CRD of kind Backup, group crd-defaults.rebasegen.dev, with --crd") {
		t.Errorf("without the CRD, the output does not say which to pass:\n%s", nowhere)
	}
}

// TestCRDDefaultingBudget (issue 12 item 5b): a CRD default copied into every item of a long
// list is refused before it is made, naming the file, the document and the CRD: a default of
// 10,000 keys on the items of a 4,000-item list (156 KB of input) took 3.8 GB.
func TestCRDDefaultingBudget(t *testing.T) {
	dir := t.TempDir()
	var def, items strings.Builder
	for i := range 10000 {
		fmt.Fprintf(&def, "k%d: v\n", i)
	}
	for range 4000 {
		items.WriteString("  - {}\n")
	}
	crd := crddoc.Namespaced("example.com", "Bomb", `type: object
properties:
  items:
    type: array
    items:
      type: object
      properties:
        payload:
          type: object
          x-kubernetes-preserve-unknown-fields: true
          default: `+"{"+strings.ReplaceAll(strings.TrimSuffix(def.String(), "\n"), "\n", ", ")+"}\n")
	cr := "apiVersion: example.com/v1\nkind: Bomb\nmetadata: {name: b, namespace: ns}\nspec:\n  items:\n" + items.String()
	write := func(name, text string) string { return writeIn(t, dir, name, text) }
	c, d, l := write("crd.yaml", crd), write("desired.yaml", cr), write("live.yaml", cr)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	r := rebasegen(t, "explain", "--crd", c, "-d", d, "-l", l)
	runtime.ReadMemStats(&after)
	checkRejected(t, "explain", r, d+": document 1 (line 1)",
		"structural-schema defaulting of CRD bombs.example.com would make more than 1112704 values of it (16 per value it holds, plus 1048576)")
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 512<<20 {
		t.Errorf("explain allocated %d MiB", grew>>20)
	}

	// the same default on 10 items is within the budget: 100,000 values
	d = write("small.yaml", strings.Replace(cr, items.String(), strings.Repeat("  - {}\n", 10), 1))
	if r := rebasegen(t, "-q", "explain", "--crd", c, "-d", d, "-l", write("small-live.yaml", strings.Replace(cr, items.String(), strings.Repeat("  - {}\n", 10), 1))); r.code != 0 {
		t.Errorf("10 items: exit %d\n%.2000s", r.code, r.stderr)
	}
}

// The binary hands the API server's own CRD update validation to the library
// (generator.Inputs.CRDUpdate): a CRD update the server refuses fails check. testdata/crdrefused
// is a CRD as kapp v0.66.0 deployed it on kube-apiserver v1.37.2 and the change that server
// refused (a default of the wrong type): check exited 0. The CRD kapp last applied passes.
func TestCheckRunsTheServersCRDValidation(t *testing.T) {
	dir := filepath.Join("testdata", "crdrefused")
	// the desired CRD, else what kapp last applied, with the rules generate writes for it (the
	// server's spec.conversion default)
	check := func(desired ...string) result {
		in := append(desired, "-l", filepath.Join(dir, "live.yaml"))
		g := rebasegen(t, append([]string{"--quiet", "generate"}, in...)...)
		if g.code != 0 {
			t.Fatalf("generate %v: exit %d, stderr:\n%s", in, g.code, g.stderr)
		}
		return rebasegen(t, append([]string{"--quiet", "check", "-r", writeIn(t, t.TempDir(), "rules.yml", g.stdout)}, in...)...)
	}
	if r := check("-d", filepath.Join(dir, "desired.yaml")); r.code != 3 || !strings.Contains(r.stdout, "spec.validation.openAPIV3Schema.properties[spec].properties[note].default: Invalid value:") {
		t.Errorf("check of the refused CRD update: exit %d, want 3 with the server's refusal; stdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if r := check(); r.code != 0 {
		t.Errorf("check of the CRD kapp last applied: exit %d, want 0; stdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
}
