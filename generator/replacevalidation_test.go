package generator_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	appsvalidation "k8s.io/kubernetes/pkg/apis/apps/validation"
	corevalidation "k8s.io/kubernetes/pkg/apis/core/validation"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// A change made in Git kapp makes by deleting the object and creating it again (issue 23, fix31b):
// under kapp.k14s.io/update-strategy always-replace, and under fallback-on-replace once the
// server refuses the update, kapp deletes the live Deployment and creates the manifest's
// (carvel.dev/kapp v0.66.0 clusterapply/add_or_update_change.go replace). A containerPort of
// 70000 passed check (exit 0: the update validation was skipped for these strategies) while the
// server refuses the create and the object stays deleted (measured with kapp v0.66.0 on
// kube-apiserver v1.37.2, see the commit); now a failing finding naming the strategy, the field
// and the server's message. Controls: port 8080 under either strategy passes, and a selector
// change (immutable: the update is refused) passes under fallback-on-replace, whose create the
// server accepts, and fails without it. On the real capture of fixtures/hpa-replicas; the oracle
// is Kubernetes' create validation called on the Deployment built by hand in its internal types.
func TestReplacedObjectJudgedByCreateValidation(t *testing.T) {
	dir := filepath.Join("..", "fixtures", "hpa-replicas")
	desired, err := os.ReadFile(filepath.Join(dir, "desired.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	const refusal = "spec.template.spec.containers[0].ports[0].containerPort: Invalid value: must be between 1 and 65535, inclusive"
	for _, port := range []int32{70000, 8080} {
		created := fixtureDeployment(port)
		created.ResourceVersion = ""
		errs := appsvalidation.ValidateDeployment(created, corevalidation.PodValidationOptions{})
		if refused := len(errs) > 0; refused != (port == 70000) || refused && refusal != errs[0].Field+": "+errs[0].Type.String()+": "+errs[0].Detail {
			t.Fatalf("oracle: the create of port %d: %v", port, errs)
		}
	}
	run := func(t *testing.T, strategy string, edit func(string) string) []verdict.Finding {
		manifest := string(desired)
		if strategy != "" {
			manifest = strings.Replace(manifest, "  name: web\n  labels:\n", "  name: web\n  annotations:\n    kapp.k14s.io/update-strategy: "+strategy+"\n  labels:\n", 1)
		}
		in := generator.Inputs{Desired: []string{writeFile(t, "desired.yaml", edit(manifest))}, Live: []string{filepath.Join(dir, "live.yaml")}, ServerVersion: "v1.37.2"}
		ch, err := generator.Check(in, nil)
		if err != nil {
			t.Fatal(err)
		}
		var failing []verdict.Finding
		for _, f := range ch.Findings(verdict.Gate{}) {
			// no rules are given: the ghosts' residual findings fail as well, not judged here
			if f.Resource.Kind == "Deployment" && f.Fails && f.Kind != verdict.KindResidual {
				failing = append(failing, f)
			}
		}
		return failing
	}
	port := func(p string) func(string) string {
		return func(m string) string { return strings.Replace(m, "containerPort: 80\n", "containerPort: "+p+"\n", 1) }
	}
	for _, strategy := range []string{"always-replace", "fallback-on-replace"} {
		t.Run(strategy, func(t *testing.T) {
			failing := run(t, strategy, port("70000"))
			found := false
			for _, f := range failing {
				found = found || strings.HasPrefix(f.Path, "spec.template.spec.containers[name=web].ports[") && strings.Contains(f.Evidence, "kapp.k14s.io/update-strategy: "+strategy) &&
					strings.Contains(f.Evidence, "refuses to create") && strings.Contains(f.Evidence, refusal)
			}
			if !found {
				t.Errorf("port 70000 under %s: no failing finding at the port naming the strategy and the create's refusal: %v", strategy, failing)
			}
			if failing := run(t, strategy, port("8080")); len(failing) > 0 {
				t.Errorf("port 8080 under %s fails: %v", strategy, failing)
			}
		})
	}
	selector := func(m string) string {
		return strings.Replace(strings.Replace(m, "    matchLabels:\n      app.kubernetes.io/name: web\n", "    matchLabels:\n      app.kubernetes.io/name: web\n      tier: front\n", 1),
			"      labels:\n        app.kubernetes.io/name: web\n", "      labels:\n        app.kubernetes.io/name: web\n        tier: front\n", 1)
	}
	if failing := run(t, "", selector); len(failing) == 0 {
		t.Errorf("a selector change updated in place passes: the server refuses it")
	}
	if failing := run(t, "fallback-on-replace", selector); len(failing) > 0 {
		t.Errorf("a selector change under fallback-on-replace fails, though the server creates the replacement: %v", failing)
	}
}
