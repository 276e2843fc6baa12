package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// check -o github puts a package's change made in a template on the template's line, as it puts a
// manifest's on the manifest's (newcomer16 N16-4: a field added or removed in a template, an object
// added, a value an overlay sets got no file and line, only the run summary; a data value's change
// was located). The lines are counted by hand below.
func TestCheckGitHubAnnotatesTheTemplatesLine(t *testing.T) {
	fix := scenario(t, "hpa-replicas") // the manifests hpa-web renders
	live, ns, rules := fix[3], fix[5], generatedRules(t)
	web := filepath.Join("..", "..", "fixtures", "packages", "hpa-web", "config")
	schema, err := os.ReadFile(filepath.Join(web, "schema.yml"))
	if err != nil {
		t.Fatal(err)
	}
	app, err := os.ReadFile(filepath.Join(web, "app.yml"))
	if err != nil {
		t.Fatal(err)
	}
	// hpa-web's templates, changed: imagePullPolicy added after the image (line 21) at line 22,
	// resources.requests.memory removed (its parent, "requests:", at line 26), the HPA's
	// averageUtilization 70 -> 80 (line 46); an overlay sets maxReplicas (its line 5); a ConfigMap
	// added (its document at line 1); the image a data value (values.yml line 1)
	changed := strings.NewReplacer("        image: #@ v.image\n", "        image: #@ v.image\n        imagePullPolicy: Always\n",
		"            memory: 64Mi\n", "", "averageUtilization: 70", "averageUtilization: 80").Replace(string(app))
	if strings.Count(changed, "\n") != strings.Count(string(app), "\n") || !strings.Contains(changed, "averageUtilization: 80") {
		t.Fatalf("hpa-web's app.yml was not changed as counted:\n%s", changed)
	}
	files := map[string]string{
		"config/schema.yml": string(schema),
		"config/app.yml":    changed,
		"config/overlay.yml": `#@ load("@ytt:overlay", "overlay")
#@overlay/match by=overlay.subset({"kind": "HorizontalPodAutoscaler"})
---
spec:
  maxReplicas: 6
`,
		"config/extra.yml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: web-extra
data:
  greeting: hello
`,
		"values.yml": "image: nginx:1.26\n",
	}
	pkg := t.TempDir()
	for name, data := range files {
		path := filepath.Join(pkg, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	template, overlay := filepath.Join(pkg, "config", "app.yml"), filepath.Join(pkg, "config", "overlay.yml")
	r := rebasegen(t, "check", "-o", "github", "-r", rules, "--package", filepath.Join(pkg, "config"), "--values", filepath.Join(pkg, "values.yml"), "-l", live, "-n", ns)
	pending := "::pending change from Git (kapp applies it on deploy): "
	for _, want := range []string{
		"::warning file=" + template + ",line=22" + pending + "apps/Deployment hpa-replicas/web spec.template.spec.containers[name=web].imagePullPolicy: ",
		"::warning file=" + template + ",line=26" + pending + "apps/Deployment hpa-replicas/web spec.template.spec.containers[name=web].resources.requests.memory: ",
		"::warning file=" + template + ",line=46" + pending + "autoscaling/HorizontalPodAutoscaler hpa-replicas/web spec.metrics[0].resource.target.averageUtilization: ",
		"::warning file=" + overlay + ",line=5" + pending + "autoscaling/HorizontalPodAutoscaler hpa-replicas/web spec.maxReplicas: ",
		"::warning file=" + filepath.Join(pkg, "values.yml") + ",line=1" + pending + "apps/Deployment hpa-replicas/web spec.template.spec.containers[name=web].image: ",
		"::warning file=" + filepath.Join(pkg, "config", "extra.yml") + ",line=1::pending create, not compared: core/ConfigMap hpa-replicas/web-extra: ",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("no %q in\n%s", want, r.stdout)
		}
	}
	if r.code != 0 || t.Failed() {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
