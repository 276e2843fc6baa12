package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readFixture is a fixture file's text, with each of the edits (old, new pairs) made once.
func readFixture(t *testing.T, name string, edits ...string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "fixtures", name))
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	for i := 0; i < len(edits); i += 2 {
		if !strings.Contains(s, edits[i]) {
			t.Fatalf("%s holds no %q", name, edits[i])
		}
		s = strings.Replace(s, edits[i], edits[i+1], 1)
	}
	return s
}

// v2beta2Change is the hpa-replicas fixture, its rules generated in dir, and pr: its manifest
// with the HPA on autoscaling/v2beta2 and maxReplicas 5 -> 7 (a change made in Git).
func v2beta2Change(t *testing.T) (fix []string, dir, rules, pr string) {
	t.Helper()
	fix = scenario(t, "hpa-replicas")
	dir = t.TempDir()
	rules = filepath.Join(dir, "rules.yml")
	if r := rebasegen(t, append([]string{"generate", "--output-file", rules}, fix...)...); r.code != 0 {
		t.Fatalf("generate: exit %d: %s", r.code, r.stderr)
	}
	pr = writeIn(t, dir, "pr.yaml", readFixture(t, "hpa-replicas/desired.yaml",
		"apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler", "apiVersion: autoscaling/v2beta2\nkind: HorizontalPodAutoscaler",
		"maxReplicas: 5", "maxReplicas: 7"))
	return fix, dir, rules, pr
}

// Regression (issue 23, probe15 P15-3): a manifest left on autoscaling/v2beta2, which
// Kubernetes 1.26 stopped serving, checked against objects of a 1.37 server, with a change made
// in Git beside it: check warned of drift ("no longer served (or no longer the stored one)") and
// exited 0, while kapp's update of the object fails (kapp v0.66.0 resource_types.go: no type for
// a version discovery does not list). It fails the gate in every format, naming the version and
// the one to use; on a server of a version rebasegen has no data for that still served it, it
// says it cannot judge, and warns.
func TestCheckFailsAnAPIVersionTheServerDoesNotServe(t *testing.T) {
	fix, _, rules, pr := v2beta2Change(t)
	args := []string{"check", "--rules", rules, "-d", pr, "-l", fix[3], "-n", fix[5]}
	const label = "apiVersion the API server does not serve (kapp's deploy fails on it): autoscaling/HorizontalPodAutoscaler hpa-replicas/web apiVersion: "
	r := rebasegen(t, args...)
	if r.code != exitPending || !strings.Contains(r.stdout, label) || !strings.Contains(r.stdout, "does not serve HorizontalPodAutoscaler at autoscaling/v2beta2, only at autoscaling/v1, autoscaling/v2") ||
		!strings.Contains(r.stdout, "set the manifest's apiVersion to autoscaling/v2\n") || strings.Contains(r.stdout, "drift") && !strings.Contains(r.stdout, "0 drift warnings") ||
		!strings.Contains(r.stdout, "pending change from Git (kapp applies it on deploy): autoscaling/HorizontalPodAutoscaler hpa-replicas/web spec.maxReplicas") {
		t.Errorf("text: want exit %d, the apiVersion failing with the version to use, and maxReplicas pending, got %d:\n%s%s", exitPending, r.code, r.stdout, r.stderr)
	}
	r = rebasegen(t, append(args, "--output", "json")...)
	var j struct{ Unserved, Drift []fieldJSON }
	if err := json.Unmarshal([]byte(r.stdout), &j); err != nil || r.code != exitPending || len(j.Unserved) != 1 || len(j.Drift) != 0 ||
		j.Unserved[0].Resource+" "+j.Unserved[0].Path != "autoscaling/HorizontalPodAutoscaler hpa-replicas/web apiVersion" {
		t.Errorf("json: want exit %d and the apiVersion under unserved, got %d (%v):\n%s", exitPending, r.code, err, r.stdout)
	}
	r = rebasegen(t, append(args, "--output", "github")...)
	// fixtures/hpa-replicas/desired.yaml line 27: the HPA's "apiVersion: autoscaling/v2", the
	// field's own line (its document's "---" is line 26)
	if r.code != exitPending || !strings.Contains(r.stdout, "::error file="+pr+",line=27::"+label) {
		t.Errorf("github: want exit %d and an error at the HPA's apiVersion line, got %d:\n%s", exitPending, r.code, r.stdout)
	}

	// a server of a version rebasegen has no data for, which still served autoscaling/v2beta2:
	// not judged, and the summary says so
	r = rebasegen(t, append(args, "--server-version=v1.25.16")...)
	want := "warning: drift: autoscaling/HorizontalPodAutoscaler hpa-replicas/web apiVersion: the server returned the object as autoscaling/v2, converted from the manifest's autoscaling/v2beta2: whether the server serves HorizontalPodAutoscaler at autoscaling/v2beta2 cannot be judged: rebasegen knows what kube-apiserver serves of v1.37 only (rulesets/served), not of v1.25.16 (--server-version)"
	if r.code != 0 || !strings.Contains(r.stdout, want) || strings.Contains(r.stdout, "does not serve") ||
		!strings.Contains(r.stdout, ", 1 apiVersion not judged (whether the server serves it is not known: kapp's deploy fails if it does not);") {
		t.Errorf("v1.25.16: want exit 0, the apiVersion as drift not judged and counted so in the summary, got %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// Regression (issue 23, probe17 P17-3): a manifest on autoscaling/v2beta2 (Kubernetes 1.26
// stopped serving it) with a change made in Git beside it passed check (exit 0, "cannot be
// judged") on every server version but v1.37, the one rulesets/served has data for. A removal is
// a fact for every later server (rulesets/removed): it fails the gate on v1.33 to v1.36, and
// where the server's version is not known (no version rebasegen supports serves it); v1.37 is
// judged by its data as before. A server that still served it (v1.25):
// TestCheckFailsAnAPIVersionTheServerDoesNotServe; the first release that did not, and one
// after the data: TestConvertedAPIVersionJudgedByServerVersion.
func TestRemovedAPIVersionFailsOnEveryLaterServer(t *testing.T) {
	fix, dir, rules, pr := v2beta2Change(t)
	noVersion := writeIn(t, dir, "live.yaml", readFixture(t, "hpa-replicas/live.yaml"))
	const label = "apiVersion the API server does not serve (kapp's deploy fails on it): autoscaling/HorizontalPodAutoscaler hpa-replicas/web apiVersion: the server returned the object as autoscaling/v2, converted from the manifest's autoscaling/v2beta2: "
	const removed = " does not serve HorizontalPodAutoscaler at autoscaling/v2beta2, which Kubernetes stopped serving in v1.26 (Deprecated API Migration Guide: https://kubernetes.io/docs/reference/using-api/deprecation-guide/#horizontalpodautoscaler-v126; rulesets/removed/apiversions.yaml): kapp's deploy fails before applying anything"
	for _, c := range []struct {
		live, version string
		code          int
		want          string
	}{
		{fix[3], "v1.33.1", exitPending, label + "kube-apiserver v1.33.1 (--server-version)" + removed},
		{fix[3], "v1.34.0", exitPending, label + "kube-apiserver v1.34.0 (--server-version)" + removed},
		{fix[3], "v1.35.0", exitPending, label + "kube-apiserver v1.35.0 (--server-version)" + removed},
		{fix[3], "v1.36.3", exitPending, label + "kube-apiserver v1.36.3 (--server-version)" + removed},
		{noVersion, "", exitPending, label + "a kube-apiserver of any version rebasegen supports (v1.33 and later, the oldest rulesets/defaults or rulesets/served holds; the server's version is not known: for an older server, give --server-version)" + removed},
		{fix[3], "v1.37.2", exitPending, label + "kube-apiserver v1.37, with its default API resource config (rulesets/served/v1.37.yaml, read from its discovery; a cluster may enable a version it still has with --runtime-config), does not serve HorizontalPodAutoscaler at autoscaling/v2beta2, only at autoscaling/v1, autoscaling/v2: kapp's deploy fails"},
	} {
		args := []string{"check", "-q", "--rules", rules, "-d", pr, "-l", c.live, "-n", fix[5]}
		if c.version != "" {
			args = append(args, "--server-version", c.version)
		}
		r := rebasegen(t, args...)
		if r.code != c.code || !strings.Contains(r.stdout, c.want) || !strings.Contains(r.stdout, "set the manifest's apiVersion to autoscaling/v2\n") ||
			!strings.Contains(r.stdout, "pending change from Git (kapp applies it on deploy): autoscaling/HorizontalPodAutoscaler hpa-replicas/web spec.maxReplicas") {
			t.Errorf("%s %q: want exit %d and\n%s\ngot %d:\n%s%s", c.live, c.version, c.code, c.want, r.code, r.stdout, r.stderr)
		}
	}
}

// A custom resource's manifest on a version other than the live object's is judged by its CRD
// among the inputs (spec.versions[].served): a version the CRD does not have, or does not serve,
// fails the gate; one it serves is drift (kapp updates the object on every deploy). The
// unexplained fields of a version the CRD lacks no longer say the CRD is not among the inputs
// (probe15 held/w14).
func TestCheckJudgesACustomResourceVersionByItsCRD(t *testing.T) {
	fix := scenario(t, "crd-defaults")
	dir := t.TempDir()
	rules := filepath.Join(dir, "rules.yml")
	if r := rebasegen(t, append([]string{"generate", "--output-file", rules}, fix...)...); r.code != 0 {
		t.Fatalf("generate: exit %d: %s", r.code, r.stderr)
	}
	const cr = "apiVersion: crd-defaults.rebasegen.dev/v1alpha1\nkind: Backup"
	const v1beta1 = "apiVersion: crd-defaults.rebasegen.dev/v1beta1\nkind: Backup"
	const label = "apiVersion the API server does not serve (kapp's deploy fails on it): crd-defaults.rebasegen.dev/Backup crd-defaults/nightly apiVersion: "
	check := func(name string, live string, edits ...string) (string, int) {
		pr := writeIn(t, dir, name, readFixture(t, "crd-defaults/desired.yaml", append([]string{cr, v1beta1}, edits...)...))
		r := rebasegen(t, "check", "--rules", rules, "-d", pr, "-l", live, "-n", fix[5])
		return r.stdout + r.stderr, r.code
	}

	// the CRD has v1alpha1 only
	out, code := check("lacking.yaml", fix[3])
	if code != exitPending || !strings.Contains(out, label) ||
		!strings.Contains(out, "CustomResourceDefinition backups.crd-defaults.rebasegen.dev as the manifests declare it, which kapp applies before the custom resources (spec.versions[].served), does not serve Backup at crd-defaults.rebasegen.dev/v1beta1, only at crd-defaults.rebasegen.dev/v1alpha1: kapp's deploy fails before applying anything") ||
		!strings.Contains(out, "set the manifest's apiVersion to crd-defaults.rebasegen.dev/v1alpha1\n") {
		t.Errorf("a version the CRD lacks: want exit %d and the apiVersion failing, got %d:\n%s", exitPending, code, out)
	}
	if strings.Contains(out, "no CustomResourceDefinition for Backup") || !strings.Contains(out, "CustomResourceDefinition backups.crd-defaults.rebasegen.dev, among the inputs, has no version v1beta1 (it has v1alpha1)") {
		t.Errorf("a version the CRD lacks: the unexplained fields must name the CRD's versions, not say it is missing:\n%s", out)
	}

	// the CRD has v1beta1 too (same schema; in the live CRD as well), served or not
	for _, served := range []string{"true", "false"} {
		version := "  - name: v1beta1\n    served: " + served + "\n    storage: false\n"
		desiredCRD := []string{"  - name: v1alpha1\n    served: true\n    storage: true\n", version + "    schema:\n__SCHEMA__  - name: v1alpha1\n    served: true\n    storage: true\n"}
		liveText := readFixture(t, "crd-defaults/live.yaml")
		schema := schemaOf(t, readFixture(t, "crd-defaults/desired.yaml"))
		live := writeIn(t, dir, "live-"+served+".yaml", strings.Replace(liveText, "  - name: v1alpha1\n", version+"    schema:\n"+schema+"  - name: v1alpha1\n", 1))
		desiredCRD[1] = strings.Replace(desiredCRD[1], "__SCHEMA__", schema, 1)
		out, code := check("served-"+served+".yaml", live, desiredCRD...)
		unserved := strings.Contains(out, label)
		if served == "true" && (unserved || !strings.Contains(out, "warning: drift: crd-defaults.rebasegen.dev/Backup crd-defaults/nightly apiVersion: the server returned the object as crd-defaults.rebasegen.dev/v1alpha1, converted from the manifest's crd-defaults.rebasegen.dev/v1beta1, which CustomResourceDefinition backups.crd-defaults.rebasegen.dev as the manifests declare it, which kapp applies before the custom resources (spec.versions[].served), serves too")) {
			t.Errorf("a version the CRD serves: want the apiVersion as drift, got exit %d:\n%s", code, out)
		}
		if served == "false" && (code != exitPending || !unserved || !strings.Contains(out, "does not serve Backup at crd-defaults.rebasegen.dev/v1beta1, only at crd-defaults.rebasegen.dev/v1alpha1: kapp's deploy applies the CRD first")) {
			// the manifests' CRD lists v1beta1: kapp's check of the kinds passes, its update then
			// fails (measured with kapp v0.66.0: "Expected to find type for resource")
			t.Errorf("a version the CRD does not serve: want exit %d and the apiVersion failing, got %d:\n%s", exitPending, code, out)
		}
	}
}

// schemaOf is the schema block of the first version of the CRD in a desired file: the lines
// after its "    schema:" up to the next version or the end of the versions.
func schemaOf(t *testing.T, desired string) string {
	t.Helper()
	_, rest, ok := strings.Cut(desired, "    schema:\n")
	if !ok {
		t.Fatal("no schema in the CRD")
	}
	var b strings.Builder
	for _, l := range strings.SplitAfter(rest, "\n") {
		if !strings.HasPrefix(l, "      ") {
			break
		}
		b.WriteString(l)
	}
	return b.String()
}
