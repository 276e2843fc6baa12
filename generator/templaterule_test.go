package generator_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
)

// TestTemplateRuleRewritesDeclaredImage (probe6 finding 9): a templateRules entry whose reference
// is a container (nameKey: image) rewrites the image Git declares, nginx, the base name of the
// versioned ConfigMap nginx, into nginx-ver-1 (kapp v0.66.0 on kube-apiserver v1.37.2 deploys
// that); check called it a pending change "which this deploy applies", exit 0: the mutation
// check's values never name a versioned resource, and the value Git holds was judged without
// template rules. It is hidden, by that rule.
func TestTemplateRuleRewritesDeclaredImage(t *testing.T) {
	dir := filepath.Join("testdata", "template-rule-image")
	c, err := generator.Check(generator.Inputs{Desired: []string{filepath.Join(dir, "v2.yaml")}, Live: []string{filepath.Join(dir, "live.yaml")}},
		[]string{filepath.Join(dir, "rules-plain.yml")})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range c.Verdict.Hidden {
		// the untagged image Git declares also defaults imagePullPolicy to Always, which the
		// copy of the live IfNotPresent in rules-plain.yml keeps (newcomer9 N9-4): not this test's
		if !strings.HasSuffix(h.Path, ".imagePullPolicy") {
			got = append(got, h.Resource.String()+" "+h.Path+" by "+h.At.String())
		}
	}
	want := "apps/Deployment tmpl/web spec.template.spec.containers[name=web].image by " + filepath.Join(dir, "v2.yaml") + ":31, document 3, templateRules[0].affectedResources.objectReferences[0]"
	if len(got) != 1 || got[0] != want {
		t.Errorf("hidden:\n%s\nwant\n%s", strings.Join(got, "\n"), want)
	}
	for _, p := range c.Verdict.Pending {
		if strings.HasSuffix(p.Finding.Path.String(), ".image") {
			t.Errorf("the image change reported pending, which kapp never applies: %+v", p)
		}
	}
}
