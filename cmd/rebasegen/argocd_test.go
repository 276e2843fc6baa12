package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// check --target argocd writes what it finds in every --output format check has: the hidden
// image of examples/argocd/index-pointer.yml (an error, exit 3) and the lint warning on its index
// pointer, each in text, in JSON and as a GitHub annotation on the rules file, at the line of
// the entry (its 11th line: the list item).
func TestCheckArgoCDFormats(t *testing.T) {
	rules := filepath.Join("..", "..", "examples", "argocd", "index-pointer.yml")
	args := append([]string{"check", "--target", "argocd", "--rules", rules}, scenario(t, "hpa-replicas")...)
	image := "spec.template.spec.containers[name=web].image"

	r := rebasegen(t, append(args, "-o", "json")...)
	var j struct {
		Target string
		Hidden []struct{ Resource, Path, Severity string }
		Lint   []struct{ Severity, File, Message string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &j); err != nil {
		t.Fatalf("-o json: %v\n%s", err, r.stdout)
	}
	if r.code != 3 || j.Target != "argocd" || len(j.Hidden) != 1 || j.Hidden[0].Path != image || j.Hidden[0].Severity != "error" ||
		len(j.Lint) != 1 || j.Lint[0].Severity != "warning" || j.Lint[0].File != rules {
		t.Errorf("-o json: exit %d, %+v", r.code, j)
	}

	r = rebasegen(t, append(args, "-o", "github")...)
	if r.code != 3 || !strings.Contains(r.stdout, "::error file="+rules+",line=11::hidden: apps/Deployment hpa-replicas/web "+image+": ") ||
		!strings.Contains(r.stdout, "::warning file="+rules+",line=11::apps/Deployment /spec/template/spec/containers/0/image: a list index") ||
		!strings.Contains(r.stdout, "::notice::1 ignore;") {
		t.Errorf("-o github: exit %d\n%s", r.code, r.stdout)
	}

	r = rebasegen(t, append(args, "-o", "text")...)
	if r.code != 3 || !strings.Contains(r.stdout, "hidden: apps/Deployment hpa-replicas/web "+image+": ") ||
		!strings.Contains(r.stdout, rules+":11: warning: apps/Deployment /spec/template/spec/containers/0/image") {
		t.Errorf("-o text: exit %d\n%s", r.code, r.stdout)
	}

	if r := rebasegen(t, append(args, "-o", "yaml")...); r.code != 1 || !strings.Contains(r.stderr, "--output: want text, json or github") {
		t.Errorf("-o yaml: exit %d, %s", r.code, r.stderr)
	}
}

// generate --target argocd writes for the Application the live objects' tracking ids name
// (argo-hpa on fixtures/argocd/argo-hpa), and refuses an --app naming another: its ignores would
// apply to none of the objects (probe5 finding 2).
func TestGenerateArgoCDApp(t *testing.T) {
	dir := filepath.Join("..", "..", "fixtures", "argocd", "argo-hpa")
	args := []string{"generate", "--target", "argocd", "-d", filepath.Join(dir, "desired.yaml"), "-l", filepath.Join(dir, "live.yaml"), "-n", "argo-hpa"}
	r := rebasegen(t, args...)
	if r.code != 0 || !strings.Contains(r.stdout, "\n  name: argo-hpa\n") {
		t.Errorf("no --app: exit %d, want the Application argo-hpa\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = rebasegen(t, append(args, "--app", "my-app")...)
	if r.code != exitError || !strings.Contains(r.stderr, "--app my-app: the live objects' argocd.argoproj.io/tracking-id names Application argo-hpa") || r.stdout != "" {
		t.Errorf("--app my-app: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// The kapp target's flags are refused with --target argocd, as --output ytt is, rather than
// silently void there (probe5 finding 10, newcomer3 finding 3(b): --fail-on-drift exited 0 on drift).
func TestArgoCDRefusesKappFlags(t *testing.T) {
	in := scenario(t, "hpa-replicas")
	rules := filepath.Join("..", "..", "examples", "argocd", "index-pointer.yml")
	for _, tc := range [][]string{
		{"check", "--fail-on-drift"}, {"check", "--fail-on-adoption"},
		{"generate", "--fail-on-drift"}, {"generate", "--fail-on-adoption"}, {"generate", "--include-unknown"},
		{"generate", "--cost"}, {"generate", "--namespace-value", "x"}, {"generate", "--package-install", "p"},
	} {
		args := append([]string{tc[0], "--target", "argocd"}, in...)
		if tc[0] == "check" {
			args = append(args, "--rules", rules)
		}
		r := rebasegen(t, append(args, tc[1:]...)...)
		if r.code != exitError || !strings.Contains(r.stderr, tc[1]+": a kapp target flag, not for --target argocd") || r.stdout != "" {
			t.Errorf("%v: exit %d\n%s%s", tc, r.code, r.stdout, r.stderr)
		}
	}
}

// --rules with no Application or argocd-cm (an empty file, as a failed `kubectl get application |`
// leaves on stdin) is an error, not "0 ignores" (probe5 finding 23); a jq expression Argo CD cannot
// compile is an error naming file, document, entry and expression before any diff runs, not
// "failed to create diff normalizer" naming a resource (probe5 finding 20).
func TestCheckArgoCDRulesInput(t *testing.T) {
	dir := t.TempDir()
	empty, bad := filepath.Join(dir, "empty.yml"), filepath.Join(dir, "bad.yml")
	if err := os.WriteFile(empty, []byte("---\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: a}\nspec:\n  ignoreDifferences:\n  - kind: Deployment\n    jqPathExpressions: ['.spec.template.spec.containers[] | select(.name == \"web\" | .image']\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	in := scenario(t, "hpa-replicas")
	r := rebasegen(t, append([]string{"check", "--target", "argocd", "--rules", empty}, in...)...)
	if r.code != exitError || !strings.Contains(r.stderr, "no Argo CD Application or argocd-cm ConfigMap") {
		t.Errorf("empty --rules: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = rebasegen(t, append([]string{"check", "--target", "argocd", "--rules", bad, "-o", "json"}, in...)...)
	if want := bad + ": document 1 (line 1): spec.ignoreDifferences[0].jqPathExpressions[0] \".spec.template.spec.containers[] | select(.name == \\\"web\\\" | .image\": does not compile as jq"; r.code != exitError || !strings.Contains(r.stderr, want) {
		t.Errorf("bad jq: exit %d, want %s\n%s%s", r.code, want, r.stdout, r.stderr)
	}
}

// check --target argocd names a desired object with no live counterpart (Argo CD: Missing) and a
// live object the Application tracks that Git no longer holds (requires pruning) as the kapp
// target does (probe5 finding 13: exit 0, no word of them): changes made in Git, warnings (exit
// 0), failing the gate under --fail-on-create and --fail-on-delete, as on the kapp target since
// b3a6d60 (they failed whatever the flags, and the flags were refused with --target argocd).
func TestCheckArgoCDUnpaired(t *testing.T) {
	dir := filepath.Join("..", "..", "fixtures", "argocd", "argo-hpa")
	desired, err := os.ReadFile(filepath.Join(dir, "desired.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	d, rules := filepath.Join(tmp, "desired.yaml"), filepath.Join(tmp, "app.yml")
	if err := os.WriteFile(d, append(desired, "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: newcm}\ndata: {a: b}\n"...), 0o600); err != nil {
		t.Fatal(err)
	}
	app := "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: argo-hpa, namespace: argocd}\nspec:\n  ignoreDifferences:\n  - {group: apps, kind: Deployment, jsonPointers: [/spec/replicas]}\n"
	if err := os.WriteFile(rules, []byte(app), 0o600); err != nil {
		t.Fatal(err)
	}
	live := filepath.Join(dir, "live.yaml")
	liveText, err := os.ReadFile(live)
	if err != nil {
		t.Fatal(err)
	}
	old := writeIn(t, tmp, "old.yaml", string(liveText)+"---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: oldcm\n  namespace: argo-hpa\n  uid: u-oldcm\n  annotations: {argocd.argoproj.io/tracking-id: 'argo-hpa:/ConfigMap:argo-hpa/oldcm'}\ndata: {a: b}\n")
	for _, tc := range []struct {
		desired, live, flag, want string
	}{
		{d, live, "--fail-on-create", "pending create, not compared: core/ConfigMap argo-hpa/newcm: no live counterpart: a change made in Git, Argo CD shows it Missing (OutOfSync) and creates it at the next sync"},
		{filepath.Join(dir, "desired.yaml"), old, "--fail-on-delete", "pending delete: core/ConfigMap argo-hpa/oldcm: a live object Application argo-hpa tracks (its argocd.argoproj.io/tracking-id names it) with no desired counterpart: a change made in Git; Argo CD shows it OutOfSync, requiring pruning; Argo CD deletes it only at a sync with pruning"},
	} {
		args := []string{"check", "--target", "argocd", "-d", tc.desired, "-l", tc.live, "-n", "argo-hpa", "--rules", rules}
		r := rebasegen(t, args...)
		if r.code != 0 || !strings.Contains(r.stdout, tc.want) {
			t.Errorf("%s: exit %d, want 0 and a warning %q\n%s%s", tc.flag, r.code, tc.want, r.stdout, r.stderr)
		}
		r = rebasegen(t, append(args, tc.flag)...)
		if r.code != 3 || !strings.Contains(r.stdout, tc.want) {
			t.Errorf("%s: exit %d, want 3\n%s%s", tc.flag, r.code, r.stdout, r.stderr)
		}
	}
}

// A finding about a hand-written ignore points at the line of the entry that causes it, in the
// Application's spec.ignoreDifferences list, in argocd-cm's split keys and in its whole
// resource.customizations block (the kapp target's rules get their lines the same way): the
// second of two entries (of two kinds' keys) hides the image made in Git, so the annotation names
// its line, not the first entry's or the document's. The expected lines are found by searching the files written
// here for the entry's text.
func TestCheckArgoCDGitHubLineOfEntry(t *testing.T) {
	dir := t.TempDir()
	const byKey = `.spec.template.spec.containers[] | select(.name == "web") | .image`
	files := map[string]string{
		"app.yml": `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: my-app
  namespace: argocd
spec:
  ignoreDifferences:
  - group: apps
    kind: Deployment
    jsonPointers:
    - /spec/replicas
  - group: apps
    kind: Deployment
    name: web
    jqPathExpressions:
    - '` + byKey + `'
`,
		"cm-split.yml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: argocd-cm
  namespace: argocd
data:
  resource.customizations.ignoreDifferences.autoscaling_HorizontalPodAutoscaler: |
    jsonPointers:
    - /status
  resource.customizations.ignoreDifferences.apps_Deployment: |
    jsonPointers:
    - /spec/replicas
    jqPathExpressions:
    - '` + byKey + `'
`,
		"cm-whole.yml": `# argocd-cm with the whole key: each kind's entry inside the block
apiVersion: v1
kind: ConfigMap
metadata:
  name: argocd-cm
  namespace: argocd
data:
  resource.customizations: |
    autoscaling/HorizontalPodAutoscaler:
      ignoreDifferences: |
        jsonPointers:
        - /status
    apps/Deployment:
      ignoreDifferences: |
        jsonPointers:
        - /spec/replicas
        jqPathExpressions:
        - '` + byKey + `'
`,
	}
	for name, want := range map[string]string{"app.yml": "  - group: apps\n    kind: Deployment\n    name: web",
		"cm-split.yml": "  resource.customizations.ignoreDifferences.apps_Deployment:", "cm-whole.yml": "    apps/Deployment:"} {
		t.Run(name, func(t *testing.T) {
			rules := filepath.Join(dir, name)
			if err := os.WriteFile(rules, []byte(files[name]), 0o644); err != nil {
				t.Fatal(err)
			}
			at := strings.Index(files[name], strings.ReplaceAll(want, "\\n", "\n"))
			if at < 0 {
				t.Fatalf("%q not in %s", want, name)
			}
			line := strings.Count(files[name][:at], "\n") + 1
			args := append([]string{"check", "--target", "argocd", "--rules", rules, "-o", "github"}, scenario(t, "hpa-replicas")...)
			r := rebasegen(t, args...)
			hidden := "::error file=" + rules + ",line=" + strconv.Itoa(line) + "::hidden: apps/Deployment hpa-replicas/web spec.template.spec.containers[name=web].image: "
			if r.code != 3 || !strings.Contains(r.stdout, hidden) || strings.Count(r.stdout, "::error ") != 1 {
				t.Errorf("exit %d, want one error, %q\n%s%s", r.code, hidden, r.stdout, r.stderr)
			}
		})
	}
}

// A ghost no ignore may take leaves its resource OutOfSync after every sync: fixtures/create-strategies
// declares a ServiceAccount secret reference's namespace, which the live object (the server's
// copy) lacks, and a Pod's defaulted matchExpressions sit in a list item without keys. check and
// generate --target argocd fail on them, as the README says residual does, count both resources in
// the summary, and name the manifest's fix where the server's value gives one (newcomer8 N8-10).
func TestArgoCDResidualFails(t *testing.T) {
	in := scenario(t, "create-strategies")
	ignores := filepath.Join(t.TempDir(), "ignores.yml")
	g := rebasegen(t, append([]string{"generate", "--target", "argocd", "--output-file", ignores}, in...)...)
	if _, err := os.Stat(ignores); g.code != 3 || err != nil || !strings.Contains(g.stderr, "Argo CD still shows 2 resources OutOfSync") {
		t.Errorf("generate: exit %d, ignores written: %v\n%s", g.code, err, g.stderr)
	}
	r := rebasegen(t, append([]string{"check", "--target", "argocd", "--rules", ignores, "-o", "json"}, in...)...)
	var j struct {
		Residual []struct{ Resource, Path, Evidence, Severity string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &j); err != nil {
		t.Fatalf("-o json: %v\n%s", err, r.stdout)
	}
	stuck := map[string]bool{}
	for _, f := range j.Residual {
		stuck[f.Resource] = true
		if f.Severity != "error" {
			t.Errorf("residual %s %s: severity %s, want error", f.Resource, f.Path, f.Severity)
		}
		if f.Path == "secrets[name=deployer-token].namespace" && !strings.Contains(f.Evidence, "drop secrets[name=deployer-token].namespace from the manifest") {
			t.Errorf("no fix named: %s", f.Evidence)
		}
	}
	if r.code != 3 || !stuck["core/ServiceAccount create-strategies/deployer"] || !stuck["core/Pod create-strategies/spread"] {
		t.Errorf("check: exit %d, residual %+v", r.code, j.Residual)
	}
	r = rebasegen(t, append([]string{"check", "--target", "argocd", "--rules", ignores}, in...)...)
	if r.code != 3 || !strings.Contains(r.stdout, "2 resources OutOfSync for ghost diffs no ignore may take") {
		t.Errorf("check -o text: exit %d\n%s", r.code, r.stdout)
	}
}
