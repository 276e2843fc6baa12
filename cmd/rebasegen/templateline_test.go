package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// located is where check locates a finding, counted by hand: its kind's JSON list and text label,
// its resource and field (none for a create), and the file and line.
type located struct {
	list, label, resource, path, file string
	line                              int
}

// changedHPAWeb writes hpa-web's templates, changed, into a directory of t's, and returns check's
// inputs for them and where each of the changes was made.
func changedHPAWeb(t *testing.T) ([]string, []located) {
	t.Helper()
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
	pending, deploy, hpa := "pending change from Git (kapp applies it on deploy)", "apps/Deployment hpa-replicas/web", "autoscaling/HorizontalPodAutoscaler hpa-replicas/web"
	return []string{"-r", rules, "--package", filepath.Join(pkg, "config"), "--values", filepath.Join(pkg, "values.yml"), "-l", live, "-n", ns},
		[]located{
			{"pending", pending, deploy, "spec.template.spec.containers[name=web].imagePullPolicy", template, 22},
			{"pending", pending, deploy, "spec.template.spec.containers[name=web].resources.requests.memory", template, 26},
			{"pending", pending, hpa, "spec.metrics[0].resource.target.averageUtilization", template, 46},
			{"pending", pending, hpa, "spec.maxReplicas", overlay, 5},
			{"pending", pending, deploy, "spec.template.spec.containers[name=web].image", filepath.Join(pkg, "values.yml"), 1},
			{"pendingCreates", "pending create, not compared", "core/ConfigMap hpa-replicas/web-extra", "", filepath.Join(pkg, "config", "extra.yml"), 1},
		}
}

// check -o github puts a package's change made in a template on the template's line, as it puts a
// manifest's on the manifest's (newcomer16 N16-4: a field added or removed in a template, an object
// added, a value an overlay sets got no file and line, only the run summary; a data value's change
// was located). The lines are counted by hand (changedHPAWeb).
func TestCheckGitHubAnnotatesTheTemplatesLine(t *testing.T) {
	args, wants := changedHPAWeb(t)
	r := rebasegen(t, append([]string{"check", "-o", "github"}, args...)...)
	for _, w := range wants {
		want := fmt.Sprintf("::warning file=%s,line=%d::%s: %s", w.file, w.line, w.label, strings.TrimSpace(w.resource+" "+w.path)) + ": "
		if !strings.Contains(r.stdout, want) {
			t.Errorf("no %q in\n%s", want, r.stdout)
		}
	}
	if r.code != 0 || t.Failed() {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// check -o json locates a drift, a pending change and a pending create where -o github annotates
// them, in its findings' file and line (issue 24: the JSON format carried no location for them,
// with -d as with --package): a manifest's (human-drift, a person's edit and a change made in Git
// of log-level, line 6; fields only the live object holds at their nearest declared parent) and a
// package's template, overlay and values file (changedHPAWeb). The lines are counted by hand.
func TestCheckJSONLocatesWhatGitHubAnnotates(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "human-drift", "desired.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	warn := filepath.Join(dir, "warn.yaml")
	if err := os.WriteFile(warn, []byte(strings.Replace(string(data), "log-level: info", "log-level: warn", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	drift := scenario(t, "human-drift")
	rules := filepath.Join(dir, "rules.yml")
	if r := rebasegen(t, append([]string{"generate", "--output-file", rules}, drift...)...); r.code != 0 {
		t.Fatalf("generate: exit %d: %s", r.code, r.stderr)
	}
	config, shop := "core/ConfigMap human-drift/shop-config", "apps/Deployment human-drift/shop"
	manifest := []located{
		{list: "drift", resource: config, path: "data.log-level", file: warn, line: 6},
		{list: "drift", resource: shop, path: "spec.template.spec.containers[name=shop].env[name=DEBUG]", file: warn, line: 26},
		{list: "drift", resource: shop, path: "spec.template.spec.containers[name=shop].resources.limits.memory", file: warn, line: 31},
		{list: "pending", resource: config, path: "data.log-level", file: warn, line: 6},
	}
	pkg, templates := changedHPAWeb(t)
	for _, c := range []struct {
		args  []string
		wants []located
	}{
		{[]string{"-d", warn, "-l", drift[3], "-n", drift[5], "-r", rules}, manifest},
		{pkg, templates},
	} {
		r := rebasegen(t, append([]string{"check", "-o", "json"}, c.args...)...)
		var out map[string]json.RawMessage
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || r.code != 0 {
			t.Fatalf("exit %d, %v\n%s%s", r.code, err, r.stdout, r.stderr)
		}
		type finding struct {
			Resource, Path, File string
			Line                 int
		}
		for _, w := range c.wants {
			var fs []finding
			if err := json.Unmarshal(out[w.list], &fs); err != nil {
				t.Fatalf("%s: %v", w.list, err)
			}
			i := slices.IndexFunc(fs, func(f finding) bool { return f.Resource == w.resource && f.Path == w.path })
			if i < 0 {
				t.Errorf("no %s finding of %s %s in\n%s", w.list, w.resource, w.path, r.stdout)
			} else if fs[i].File != w.file || fs[i].Line != w.line {
				t.Errorf("%s %s %s: file %q line %d, want %s:%d", w.list, w.resource, w.path, fs[i].File, fs[i].Line, w.file, w.line)
			}
		}
	}
}
