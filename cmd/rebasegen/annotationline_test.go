package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// check -o github puts a change's annotation on the line of its field in the manifest, not on
// the line its document starts at (newcomer14 N14-4: a second document's field deep in a
// container was annotated at the document's "---"). The lines are counted by hand below.
func TestCheckGitHubAnnotatesTheFieldsLine(t *testing.T) {
	dir := t.TempDir()
	fix := scenario(t, "hpa-replicas")
	rules := filepath.Join(dir, "rules.yml")
	if r := rebasegen(t, append([]string{"generate", "--output-file", rules}, fix...)...); r.code != 0 {
		t.Fatalf("generate: exit %d\n%s", r.code, r.stderr)
	}
	// the fixture's two objects, the HPA first; the Deployment now declares imagePullPolicy
	// Always (the live object holds the server's IfNotPresent): a change made in Git
	manifest := `apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: web
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: web
  minReplicas: 2
  maxReplicas: 5
  metrics:
  - type: Resource
    resource:
      name: cpu
      target:
        type: Utilization
        averageUtilization: 70
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
    app.kubernetes.io/name: web
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: web
  template:
    metadata:
      labels:
        app.kubernetes.io/name: web
    spec:
      containers:
      - name: web
        image: nginx:1.25
        imagePullPolicy: Always
        ports:
        - containerPort: 80
        resources:
          requests:
            cpu: 100m
            memory: 64Mi
`
	desired := filepath.Join(dir, "desired.yaml")
	if err := os.WriteFile(desired, []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	r := rebasegen(t, "check", "-o", "github", "-r", rules, "-d", desired, "-l", fix[3], "-n", fix[5])
	// line 19 is the "---", line 20 the Deployment's first; "        imagePullPolicy: Always" is line 39
	want := "::warning file=" + desired + ",line=39::pending change from Git (kapp applies it on deploy): apps/Deployment hpa-replicas/web spec.template.spec.containers[name=web].imagePullPolicy: " // its evidence follows
	if r.code != 0 || !strings.Contains(r.stdout, want) {
		t.Errorf("exit %d, no %q in\n%s%s", r.code, want, r.stdout, r.stderr)
	}
}
