package verify

import (
	"encoding/base64"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// A ytt rule whose fail() quotes a Secret's values (desired and live, base64 and decoded) makes
// kapp's rebase fail: the error says so and names the resource, and holds no text of the rule's
// (probe6 finding 6: the values replaced literally, a transformed one passed).
func TestRuleErrorsQuoteNoSecretValue(t *testing.T) {
	const rule = `
apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- ytt:
    overlayContractV1:
      overlay.yml: |
        #@ load("@ytt:overlay", "overlay")
        #@ load("@ytt:data", "data")
        #@ load("@ytt:base64", "base64")
        #@ def leak():
        #@   n, e = data.values.new, data.values.existing
        #@   fail("LEAK:" + n["data"]["password"] + "|" + e["data"]["password"] + "|" + base64.decode(e["data"]["password"]) + "|" + e["data"]["pin"] + "|pinned")
        #@ end
        #@overlay/match by=overlay.all
        ---
        #@ leak()
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: v1, kind: Secret}
`
	enc := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	desired := obj(t, "apiVersion: v1\nkind: Secret\nmetadata: {name: db, namespace: demo}\ndata: {password: "+enc("GITSECRET")+", pin: "+enc("42")+"}\n")
	live := obj(t, "apiVersion: v1\nkind: Secret\nmetadata: {name: db, namespace: demo}\ndata: {password: "+enc("LIVESECRET")+", pin: MTIz}\n")
	pairs := []Pair{{Desired: desired, Live: live}}
	_, err := Verify(pairs, []*unstructured.Unstructured{obj(t, rule)})
	if want := "ytt rebase rule failed on core/Secret demo/db: ytt's message is withheld"; err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "LEAK:") {
		t.Fatalf("error %v, want %q and no text of the rule's", err, want)
	}
	for _, v := range []string{"GITSECRET", enc("GITSECRET"), "LIVESECRET", enc("LIVESECRET"), "MTIz"} {
		if strings.Contains(err.Error(), v) {
			t.Errorf("the error quotes the Secret value %s: %v", v, err)
		}
	}
}
