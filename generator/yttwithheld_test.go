package generator_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
)

// TestYTTRuleErrorOnSecretWithheld (probe6 finding 6): a ytt rule's fail() printing a Secret's
// value transformed (spaced, lower-cased, reversed, base64 of the reversed) reached the output:
// the literal redaction of probe5 finding 22 replaced the exact values only. No text of ytt's is
// kept for an evaluation on a Secret; the error names the rule and the resource.
func TestYTTRuleErrorOnSecretWithheld(t *testing.T) {
	dir := filepath.Join("testdata", "secret-ytt-fail")
	in := generator.Inputs{Desired: []string{filepath.Join(dir, "desired.yaml")}, Live: []string{filepath.Join(dir, "live.yaml")}}
	for _, leak := range []string{
		`" ".join(v.elems()) + "|" + v.lower() + "|" + v[::-1]`,
		`base64.encode(v[::-1]) + "|" + v[0:6] + "|" + v[6:]`,
		`data.values.existing["data"]["password"] + "|" + str(data.values.new["stringData"])`,
	} {
		rules := writeFile(t, "rule.yml", `apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- ytt:
    overlayContractV1:
      overlay.yml: |
        #@ load("@ytt:overlay", "overlay")
        #@ load("@ytt:data", "data")
        #@ load("@ytt:base64", "base64")
        #@ def leak():
        #@   v = base64.decode(data.values.existing["data"]["password"])
        #@   fail("LEAK:" + `+leak+`)
        #@ end
        #@overlay/match by=overlay.all
        ---
        #@ leak()
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: v1, kind: Secret}
`)
		_, err := generator.Check(in, []string{rules})
		if err == nil {
			t.Fatalf("%s: check passed", leak)
		}
		msg := err.Error()
		for _, secret := range []string{"LEAK", "S U P E R", "supersecret", "TERCESREPUS", "VEVSQ0VTUkVQVVM=", "SUPERS", "ECRET", "U1VQRVJTRUNSRVQ=", "TOKENSECRET42"} {
			if strings.Contains(msg, secret) {
				t.Errorf("%s: the error quotes %q: %s", leak, secret, msg)
			}
		}
		if want := "rendering ytt rebase rule " + rules + ":4, document 1, rebaseRules[0] on core/Secret demo/db with ytt: it failed, and ytt's message is withheld"; !strings.HasPrefix(msg, want) {
			t.Errorf("%s: got %s\nwant %s...", leak, msg, want)
		}
	}
}
