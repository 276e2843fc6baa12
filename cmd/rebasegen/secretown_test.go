package main

import (
	"os"
	"path/filepath"
	"testing"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/rebasegen/rebasegen/generator/load"
)

// A rules Secret is one PackageInstall's: its rules match the resources that install renders,
// not every resource of their kinds (newcomer4 finding 4: a Deployment of another install in the
// same namespace, or of any install the Secret is added to, was matched by every kind's rule).
// kapp's own matcher code judges the Secret's Config: each of the install's resources is matched
// by the rules it was matched by before, and a resource of the same kinds with another name by
// none of them; check finds the Secret current.
func TestSecretRulesMatchTheInstallsOwnResources(t *testing.T) {
	in := scenario(t, "package-app")
	file := filepath.Join(t.TempDir(), "secret.yml")
	if r := rebasegen(t, append([]string{"generate"}, append(in, "--output", "secret", "--package-install", "shop", "--output-file", file)...)...); r.code != 0 {
		t.Fatalf("generate: exit %d: %s", r.code, r.stderr)
	}
	bs, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var secret struct {
		StringData map[string]string `json:"stringData"`
	}
	if err := yaml.Unmarshal(bs, &secret); err != nil {
		t.Fatal(err)
	}
	res, err := ctlres.NewResourceFromBytes([]byte(secret.StringData["rebase-rules.yml"]))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := ctlconf.NewConfigFromResource(res)
	if err != nil {
		t.Fatal(err)
	}
	matched := func(u *unstructured.Unstructured) int {
		r := ctlres.NewResourceUnstructured(*u, ctlres.ResourceType{})
		n := 0
		for _, rule := range cfg.RebaseRules {
			if (ctlres.AnyMatcher{Matchers: ctlconf.ResourceMatchers(rule.ResourceMatchers).AsResourceMatchers()}).Matches(r) {
				n++
			}
		}
		return n
	}
	objs, err := load.Paths([]string{in[1]}, nil)
	if err != nil {
		t.Fatal(err)
	}
	kinds := 0
	for _, o := range objs {
		u := o.Unstructured.DeepCopy()
		if u.GetNamespace() == "" && u.GetKind() != "CustomResourceDefinition" {
			u.SetNamespace(in[5])
		}
		own := matched(u)
		if own == 0 {
			continue
		}
		kinds++
		other := u.DeepCopy()
		other.SetName(u.GetName() + "-of-another-install")
		if n := matched(other); n != 0 {
			t.Errorf("%s %s: %d of the Secret's rules match it, though the install renders no such object", other.GetKind(), other.GetName(), n)
		}
	}
	if kinds == 0 {
		t.Fatal("no rule of the Secret matches any of the install's resources")
	}
	r := rebasegen(t, append([]string{"check"}, append(in, "--rules", file)...)...)
	if r.code != 0 {
		t.Errorf("check on the generated Secret: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
}
