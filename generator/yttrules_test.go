package generator_test

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/emit"
	"github.com/rebasegen/rebasegen/generator/lint"
)

// yttDocumentConfig is hidingConfig as one ytt annotation on a document's "---" line: ytt makes
// the document the Config; read as plain YAML it is an empty document.
const yttDocumentConfig = `--- #@ {"apiVersion": "kapp.k14s.io/v1alpha1", "kind": "Config", "rebaseRules": [{"path": ["spec"], "type": "copy", "sources": ["existing", "new"], "resourceMatchers": [{"apiVersionKindMatcher": {"apiVersion": "crd-defaults.rebasegen.dev/v1alpha1", "kind": "Backup"}}]}]}
`

// A rule file whose only ytt annotation follows "---" is a ytt template (ytt's parser says so),
// and a rules Secret's rebase-rules.yml is rendered with ytt, as kapp-controller's ytt step
// renders it: both were read as plain YAML, an empty document, and the rule hiding every change
// under the Backup's spec passed.
func TestCheckRendersYTTRuleFilesAndRulesSecrets(t *testing.T) {
	for _, tc := range []struct{ name, file string }{
		{"rules file", yttDocumentConfig},
		{"rules Secret", "apiVersion: v1\nkind: Secret\nmetadata: {name: shop-rebase-rules, namespace: crd-defaults}\nstringData:\n  rebase-rules.yml: |\n    " +
			strings.TrimSpace(yttDocumentConfig) + "\n"},
	} {
		f := writeFile(t, "rules.yml", tc.file)
		checkHidesTheBackupSpec(t, tc.name, f)
	}
	// an overlay would change the package's objects in kapp-controller's ytt step: refused
	f := writeFile(t, "rules.yml", "apiVersion: v1\nkind: Secret\nmetadata: {name: shop-rebase-rules}\nstringData:\n  rebase-rules.yml: |\n    #@ load(\"@ytt:overlay\", \"overlay\")\n    #@overlay/match by=overlay.all, expects=\"0+\"\n    ---\n    spec: {}\n")
	if _, err := generator.Check(fixture("crd-defaults"), []string{f}); err == nil || !strings.Contains(err.Error(), "rebase-rules.yml: it uses ytt overlays") {
		t.Errorf("a rules Secret with an overlay: %v", err)
	}
}

// lint reads rule files as check does: a ytt-format file rendered with the given data values, a
// rules Secret whose rebase-rules.yml is a ytt template rendered as kapp-controller renders it,
// and a file whose only ytt annotation follows "---". lint read the first as plain YAML (its
// matcher's namespace <nil>) and found no Config in the other two.
func TestLintReadsRulesAsCheckDoes(t *testing.T) {
	ytt := rulesFile(t, emit.FormatYTT, same) // its Deployment's namespace: #@ data.values.ns
	for _, tc := range []struct {
		ns, want string
	}{
		{"hpa-replicas", "[]"},
		{"elsewhere", "[warning ytt output document 1: kindNamespaceNameMatcher {kind: Deployment, name: web, namespace: elsewhere} matches none of the desired objects]"},
	} {
		in := generator.Inputs{Desired: hpaInputs.Desired, Namespace: "hpa-replicas", Package: loadValues("ns=" + tc.ns)}
		findings, _, err := generator.Lint(in, []string{ytt})
		if err != nil {
			t.Fatalf("ns=%s: %v", tc.ns, err)
		}
		var got []string
		for _, f := range findings {
			got = append(got, fmt.Sprintf("%s %s", f.Severity, f.Message))
		}
		if fmt.Sprint(got) != tc.want {
			t.Errorf("ytt-format rules with ns=%s: got %v, want %s", tc.ns, got, tc.want)
		}
	}
	secret := "apiVersion: v1\nkind: Secret\nmetadata: {name: shop-rebase-rules, namespace: crd-defaults}\nstringData:\n  rebase-rules.yml: |\n" +
		"    #@ load(\"@ytt:data\", \"data\")\n    " + strings.TrimSpace(yttDocumentConfig) + "\n"
	for _, tc := range []struct{ name, file string }{
		{"rules file", yttDocumentConfig},
		{"rules Secret", secret},
	} {
		f := writeFile(t, "rules.yml", tc.file)
		findings, _, err := generator.Lint(fixture("crd-defaults"), []string{f})
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		var hides []string
		for _, l := range findings {
			if l.Severity == lint.Error && strings.Contains(l.Message, "the rule hides a change made in Git") {
				hides = append(hides, fmt.Sprintf("%s:%d", l.File, l.Line))
			}
		}
		want := f + ":1" // the annotation on line 1 writes the whole Config, the rule with it (issue 24: line 0)
		if tc.name == "rules Secret" {
			want = f + ":5" // the Secret's rebase-rules.yml key, as check's hidden findings name it
		}
		if fmt.Sprint(hides) != "["+want+"]" {
			t.Errorf("%s: want the rule's hidden fields at %s, got %+v", tc.name, want, findings)
		}
	}
}

// kapp-controller writes every key of a ytt-paths-from-secret-name Secret as a file of the ytt
// step (fetch/inline.go writeFromSecret), not only rebase-rules.yml: a hiding rule in another key,
// or a data value in another key that makes rebase-rules.yml render one, was never read and
// check exited 0.
func TestCheckReadsEveryKeyOfARulesSecret(t *testing.T) {
	plain := strings.TrimPrefix(yttDocumentConfig, "--- #@ ")
	indent := func(s string) string { return "    " + strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n    ") + "\n" }
	secret := func(keys ...string) string {
		s := "apiVersion: v1\nkind: Secret\nmetadata: {name: shop-rebase-rules, namespace: crd-defaults}\nstringData:\n"
		for i := 0; i < len(keys); i += 2 {
			s += "  " + keys[i] + ": |\n" + indent(keys[i+1])
		}
		return s
	}
	for _, tc := range []struct{ name, file string }{
		{"a plain Config in other.yml", secret("rebase-rules.yml", "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\n", "other.yml", plain)},
		{"other.yml alone, in data", "apiVersion: v1\nkind: Secret\nmetadata: {name: shop-rebase-rules, namespace: crd-defaults}\ndata:\n  other.yml: " + base64.StdEncoding.EncodeToString([]byte(plain)) + "\n"},
	} {
		f := writeFile(t, "rules.yml", tc.file)
		checkHidesTheBackupSpec(t, tc.name, f)
		findings, _, err := generator.Lint(fixture("crd-defaults"), []string{f})
		if err != nil {
			t.Fatalf("%s: lint: %v", tc.name, err)
		}
		hides := 0
		for _, l := range findings {
			if l.Severity == lint.Error && strings.Contains(l.Message, "the rule hides a change made in Git") {
				hides++
			}
		}
		if hides != 1 {
			t.Errorf("%s: lint: want the hiding rule found once, got %+v", tc.name, findings)
		}
	}
	// an overlay, data values, a data values schema or a library's values in any key would change
	// the package's objects (kapp-controller renders the Secret's files after the package's, in
	// the same ytt run: a Secret's data values overrode the package's image, probe23 finding 13):
	// refused, naming the key
	for _, tc := range []struct{ other, want string }{
		{"#@ load(\"@ytt:overlay\", \"overlay\")\n#@overlay/match by=overlay.all, expects=\"0+\"\n---\nspec: {}\n", "other.yml: it uses ytt overlays"},
		{"#@data/values\n---\nimage: nginx:1.25\n", "other.yml: it uses ytt data values (#@data/values)"},
		{"#@data/values-schema\n---\nimage: nginx:1.25\n", "other.yml: it uses a ytt data values schema"},
		{"#@library/ref \"@lib\"\n#@data/values\n---\nimage: nginx:1.25\n", "other.yml: it uses data values for a ytt library"},
	} {
		f := writeFile(t, "rules.yml", secret("rebase-rules.yml", "#@ load(\"@ytt:data\", \"data\")\n--- "+strings.TrimSpace(plain)+"\n", "other.yml", tc.other))
		if _, err := generator.Check(fixture("crd-defaults"), []string{f}); err == nil || !strings.Contains(err.Error(), f+": document 1 (line 1): field other.yml: "+strings.TrimPrefix(tc.want, "other.yml: ")) {
			t.Errorf("a rules Secret with %q in other.yml: %v", tc.other, err)
		}
	}
}

// checkHidesTheBackupSpec checks that check, given the rules file f on the crd-defaults fixture,
// finds the declared fields of the Backup's spec hidden, and no others.
func checkHidesTheBackupSpec(t *testing.T, name, f string) {
	t.Helper()
	c, err := generator.Check(fixture("crd-defaults"), []string{f})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if got := fmt.Sprint(hiddenPaths(c)); got != "[spec.storage.bucket spec.targets[0].name spec.targets[1].name spec.targets[1].port spec.targets[1].tls.mode spec]" {
		t.Errorf("%s: hidden %s", name, got)
	}
}
