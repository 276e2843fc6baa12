package generator_test

import (
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
)

// A Secret labelled kapp.k14s.io/config given as rules: kapp refuses it with a message its
// fmt.Errorf has no verb for the resource in, and the error reached the output as Go wrote it,
// "...do not match%!(EXTRA string=secret/app-credentials (v1) cluster)" (probe7 Minor).
func TestCheckKappErrorHasNoFormatBug(t *testing.T) {
	rules := writeFile(t, "rules.yml", `apiVersion: v1
kind: Secret
metadata:
  name: app-credentials
  labels: {kapp.k14s.io/config: ""}
stringData:
  config.yml: |
    apiVersion: kapp.k14s.io/v1alpha1
    kind: Config
`)
	_, err := generator.Check(fixture("secret-empty-values"), []string{rules})
	if err == nil {
		t.Fatal("kapp's refusal of the Secret is no error")
	}
	msg := err.Error()
	if strings.Contains(msg, "%!") || !strings.Contains(msg, "do not match (secret/app-credentials (v1) cluster)") || !strings.Contains(msg, "rules.yml") {
		t.Errorf("error %q: want kapp's message with the resource in parentheses, naming rules.yml, no %%!", msg)
	}
}
