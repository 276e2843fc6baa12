package generator_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
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
		c, err := generator.Check(fixture("crd-defaults"), []string{f})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := fmt.Sprint(hiddenPaths(c)); got != "[spec.storage.bucket spec.targets[0].name spec.targets[1].name spec.targets[1].port spec.targets[1].tls.mode]" {
			t.Errorf("%s: hidden %s", tc.name, got)
		}
	}
	// an overlay would change the package's objects in kapp-controller's ytt step: refused
	f := writeFile(t, "rules.yml", "apiVersion: v1\nkind: Secret\nmetadata: {name: shop-rebase-rules}\nstringData:\n  rebase-rules.yml: |\n    #@ load(\"@ytt:overlay\", \"overlay\")\n    #@overlay/match by=overlay.all, expects=\"0+\"\n    ---\n    spec: {}\n")
	if _, err := generator.Check(fixture("crd-defaults"), []string{f}); err == nil || !strings.Contains(err.Error(), "rebase-rules.yml: it uses ytt overlays") {
		t.Errorf("a rules Secret with an overlay: %v", err)
	}
}
