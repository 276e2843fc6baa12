package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	_, desiredCR := split("desired.yaml")
	liveCRD, liveCR := split("live.yaml")
	d, l, crd := write("desired.yaml", desiredCR), write("live.yaml", liveCR), write("crds.yaml", liveCRD)
	explain := func(extra ...string) string {
		r := rebasegen(t, append([]string{"--quiet", "explain", "--color", "never", "-d", d, "-l", l, "-n", "crd-defaults"}, extra...)...)
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
