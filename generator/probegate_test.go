package generator_test

import (
	"strings"
	"testing"

	ctldiff "carvel.dev/kapp/pkg/kapp/diff"
	"sigs.k8s.io/yaml"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/internal/kapptest"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

const probedWeb = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx:1.25
        readinessProbe:
          httpGet: {path: /healthz, port: 8080}
`

const unprobedWorker = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: worker
spec:
  selector:
    matchLabels: {app: worker}
  template:
    metadata:
      labels: {app: worker}
    spec:
      containers:
      - name: worker
        image: busybox:1.36
`

// The generated copy of a probe handler's default (readinessProbe.httpGet.scheme) acts only where
// the manifest declares that handler and no other, whatever the other Deployments of the input:
// beside a Deployment without a probe, it lost its gate on httpGet (the worker, which needs no
// copy there, lacks the map) and was gated on the readinessProbe alone, so once Git switched the
// web's probe to tcpSocket kapp's copy wrote httpGet back beside it, which the API server refuses
// ("may not specify more than 1 handler type"), and check called the switch hidden (newcomer10
// N10-1). The oracle is kapp's own deploy diff under the generated rules, under both bases: the
// object it applies holds tcpSocket alone.
func TestProbeHandlerCopyKeepsItsGateBesideAnUnprobedDeployment(t *testing.T) {
	live := writeFile(t, "live.yaml", kapptest.Deployed(t, "shop", probedWeb+"---\n"+unprobedWorker))
	before := generator.Inputs{Desired: []string{writeFile(t, "desired.yaml", probedWeb+"---\n"+unprobedWorker)}, Live: []string{live}, Namespace: "shop"}
	rules, _ := generatedRules(t, before)
	switched := strings.Replace(probedWeb, "httpGet: {path: /healthz, port: 8080}", "tcpSocket: {port: 8080}", 1)
	pr := generator.Inputs{Desired: []string{writeFile(t, "pr.yaml", switched+"---\n"+unprobedWorker)}, Live: []string{live}, Namespace: "shop"}
	for _, ch := range kapptest.BothBases(t, pr.Desired, pr.Live[0], pr.Namespace, []string{rules}) {
		if ch.NewResource().Name() != "web" {
			continue
		}
		if ch.Op() != ctldiff.ChangeOpUpdate {
			t.Fatalf("against last applied %v: kapp's op on web is %s, want update", ch.AgainstLastApplied, ch.Op())
		}
		probe := ch.NewResource().UnstructuredObject()["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["readinessProbe"].(map[string]any)
		if _, both := probe["httpGet"]; both {
			t.Errorf("against last applied %v: kapp applies a readinessProbe with httpGet beside tcpSocket, which the API server refuses: %v", ch.AgainstLastApplied, probe)
		}
	}
	checkedClean(t, pr, rules)
}

// checkedClean checks in with the rule files and fails t on every hidden change and residual
// ghost diff check reports.
func checkedClean(t *testing.T, in generator.Inputs, rules ...string) {
	t.Helper()
	c, err := generator.Check(in, rules)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range c.Findings(verdict.Gate{}) {
		if f.Kind == verdict.KindHidden || f.Kind == verdict.KindResidual {
			t.Errorf("%s: %+v", f.Kind, f)
		}
	}
}

// A manifest whose probe declares two handlers is one the API server refuses, and kapp's deploy
// of it fails whatever the rules: explain, generate and check name the file, document and field
// and exit as for bad input, where check called the second handler a change kapp applies, exit 0
// (newcomer10 N10-1). The oracle is the API server's own validation of the Deployment
// (k8s.io/kubernetes pkg/apis/apps/validation ValidateDeployment), which refuses it.
func TestTwoProbeHandlersAreNamed(t *testing.T) {
	live := writeFile(t, "live.yaml", kapptest.Deployed(t, "shop", probedWeb))
	two := strings.Replace(probedWeb, "httpGet: {path: /healthz, port: 8080}", "httpGet: {path: /healthz, port: 8080}\n          tcpSocket: {port: 8080}", 1)
	var m map[string]any
	if err := yaml.Unmarshal([]byte(two), &m); err != nil {
		t.Fatal(err)
	}
	refused := kapptest.DeploymentRefused(t, m, "shop")
	if refused == nil || !strings.Contains(refused.Error(), "readinessProbe.tcpSocket: Forbidden: may not specify more than 1 handler type") {
		t.Fatalf("the API server's validation does not refuse the manifest as the test expects: %v", refused)
	}
	in := generator.Inputs{Desired: []string{writeFile(t, "two.yaml", two)}, Live: []string{live}, Namespace: "shop"}
	want := "two.yaml: document 1 (line 1): field spec.template.spec.containers[name=web].readinessProbe: declares httpGet and tcpSocket"
	_, err := generator.Check(in, nil)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("check: %v, want an error containing %q", err, want)
	}
	if _, _, err := generator.Explain(in); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("explain: %v, want an error containing %q", err, want)
	}
}
