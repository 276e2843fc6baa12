package generator_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// An object renamed in Git to a name the API server refuses (Web_1: upper case and "_", which no
// DNS-1123 subdomain holds, read off Kubernetes' naming rules) was a pending create like any
// other (newcomer15 N15-6): kapp's deploy fails when it creates it. It fails the gate, named by
// the kind's name validation; a valid new name (web-1) stays a pending create alone. A Service's
// name is a DNS-1035 label: 1web (a leading digit) is refused there, not for a ConfigMap.
func TestInvalidNameFailsTheDeploy(t *testing.T) {
	dir := filepath.Join("..", "fixtures", "hpa-replicas")
	desired, err := os.ReadFile(filepath.Join(dir, "desired.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	extra := "---\napiVersion: v1\nkind: Service\nmetadata: {name: 1web}\nspec: {ports: [{port: 80}]}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: 1web}\n"
	for _, c := range []struct {
		name string
		want []string // the failing resources
	}{
		{"Web_1", []string{"Deployment hpa-replicas/Web_1", "HorizontalPodAutoscaler hpa-replicas/Web_1", "Service hpa-replicas/1web"}},
		{"web-1", []string{"Service hpa-replicas/1web"}},
	} {
		manifest := strings.ReplaceAll(string(desired), "name: web\n", "name: "+c.name+"\n") + extra
		in := generator.Inputs{Desired: []string{writeFile(t, "desired.yaml", manifest)}, Live: []string{filepath.Join(dir, "live.yaml")}, Namespace: "hpa-replicas"}
		ch, err := generator.Check(in, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range ch.Findings(verdict.Gate{}) {
			if f.Kind != verdict.KindDeployFails {
				continue
			}
			got = append(got, f.Resource.Kind+" "+f.Resource.Namespace+"/"+f.Resource.Name)
			if !f.Fails || !strings.Contains(f.Evidence, "the API server refuses metadata.name \""+f.Resource.Name+"\"") {
				t.Errorf("%s: want a failing finding naming the refused name, got (fails %v) %s", c.name, f.Fails, f.Evidence)
			}
		}
		if strings.Join(got, ", ") != strings.Join(c.want, ", ") {
			t.Errorf("%s: deploy fails on %q, want %q", c.name, got, c.want)
		}
	}
}
