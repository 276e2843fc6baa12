package generator_test

import (
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
)

// spec copied from the cluster for the crd-defaults fixture's Backup: it hides every change made
// in Git under spec (TestCheckFailsOnARuleHidingDeclaredFields).
const hidingConfig = `apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- path: [spec]
  type: copy
  sources: [existing, new]
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: crd-defaults.rebasegen.dev/v1alpha1, kind: Backup}
`

// rulesConfigMap is a ConfigMap kapp reads as a Config (labelled kapp.k14s.io/config, the Config
// in data."config.yml"), with extra metadata lines (kapp's labels on the live copy).
func rulesConfigMap(config, extra string) string {
	return `apiVersion: v1
kind: ConfigMap
metadata:
  name: kapp-rules
  labels:
    kapp.k14s.io/config: ""
` + extra + `data:
  config.yml: |
    ` + strings.ReplaceAll(strings.TrimSpace(config), "\n", "\n    ") + "\n"
}

func hiddenPaths(c *generator.Checked) []string {
	var out []string
	for _, h := range c.Hidden {
		out = append(out, h.Path)
	}
	return out
}

// A ConfigMap labelled kapp.k14s.io/config among the desired objects is read by kapp as a Config
// (and applied): its rules are the package's own and get the mutation check (it was left out:
// check passed a rule hiding every change under the Backup's spec).
func TestCheckJudgesAConfigMapAmongTheDesiredObjects(t *testing.T) {
	in := fixture("crd-defaults")
	cm := writeFile(t, "rules-configmap.yml", rulesConfigMap(hidingConfig, ""))
	liveCM := writeFile(t, "live-configmap.yml", rulesConfigMap(hidingConfig, `    kapp.k14s.io/app: "1795322452267385643"
  namespace: crd-defaults
`))
	in.Desired = append(in.Desired, cm)
	in.Live = append(in.Live, liveCM)
	c, err := generator.Check(in, []string{classicRules})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(hiddenPaths(c), " ")
	if got != "spec.storage.bucket spec.targets[0].name spec.targets[1].name spec.targets[1].port spec.targets[1].tls.mode spec" {
		t.Fatalf("hidden: %q", got)
	}
	// line 12 of the ConfigMap: the rule's "- path" in the literal block
	if r := c.Hidden[0].Rule; !strings.Contains(r, cm+`:12, document 1, data["config.yml"] rebaseRules[0]`) {
		t.Errorf("the rule is not named with its ConfigMap and its line: %q", r)
	}
}
