package main

import (
	"crypto/md5"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rebasegen/rebasegen/generator/emit"
)

// The findings of issue 24's last newcomer walkthrough (a new user with their own package,
// following only the README): each is said, or no longer happens.

// liveIn writes the hpa-replicas capture as if captured in namespace ns: the namespace and the
// kapp association labels (v1.<md5 of namespace/group/kind/name>, kapp v0.66.0
// resources/association_label.go) that kapp derives from it.
func liveIn(t *testing.T, dir, ns string) string {
	t.Helper()
	data, err := os.ReadFile(scenario(t, "hpa-replicas")[3])
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for _, r := range []string{"apps/Deployment/web", "autoscaling/HorizontalPodAutoscaler/web"} {
		text = strings.ReplaceAll(text, fmt.Sprintf("v1.%x", md5.Sum([]byte("hpa-replicas/"+r))), fmt.Sprintf("v1.%x", md5.Sum([]byte(ns+"/"+r))))
	}
	path := filepath.Join(dir, "live-"+ns+".yaml")
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(text, "hpa-replicas", ns)), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// copyPackage copies fixtures/packages/hpa-web into dir: its config directory and values file.
func copyPackage(t *testing.T, dir string) (config, values string) {
	t.Helper()
	pkg := filepath.Join("..", "..", "fixtures", "packages", "hpa-web")
	config = filepath.Join(dir, "config")
	for _, f := range []string{"app.yml", "schema.yml"} {
		copyTo(t, filepath.Join(pkg, "config", f), config, f)
	}
	return config, copyTo(t, filepath.Join(pkg, "values.yml"), dir, "values.yml")
}

// A package's rules follow the install namespace, so a capture of another namespace gives the same
// rules: the file is not stale (it was, only because the rules' comments named
// apps/Deployment hpa-replicas/web where the regenerated ones named prod/web). A rule changed
// still is.
func TestPackageRulesCheckedInAnotherNamespaceAreNotStale(t *testing.T) {
	dir := t.TempDir()
	config, values := copyPackage(t, dir)
	rules := filepath.Join(config, "rebase-rules.yml")
	r := rebasegen(t, "generate", "--package", config, "--values", values, "-l", scenario(t, "hpa-replicas")[3], "-n", "hpa-replicas", "--output-file", rules)
	if r.code != 0 {
		t.Fatalf("generate: exit %d\n%s", r.code, r.stderr)
	}
	check := []string{"check", "--package", config, "--values", values, "-l", liveIn(t, dir, "prod"), "-n", "prod", "--rules", rules}
	if r := rebasegen(t, check...); r.code != 0 || !strings.Contains(r.stdout, " 0 stale generated files") {
		t.Errorf("check in namespace prod: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	data, err := os.ReadFile(rules)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rules, []byte(strings.Replace(string(data), "revisionHistoryLimit|", "", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := rebasegen(t, check...); r.code != exitPending || !strings.Contains(r.stdout, "stale: "+rules+" would change") {
		t.Errorf("a rule edited: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// generate with a wrong -n where only the cluster-scoped objects pair (a CRD beside its custom
// resource) is an error saying which -n pairs the rest, first, and writes nothing: it wrote the
// CRD's rules alone, exited 0, and printed the "did you mean -n" hints after its summary.
func TestGenerateWrongNamespaceWhereOnlyClusterScopedObjectsPair(t *testing.T) {
	fix := scenario(t, "crd-defaults")
	fix[5] = "wrong"
	out := filepath.Join(t.TempDir(), "rules.yml")
	r := rebasegen(t, append([]string{"generate", "--output-file", out}, fix...)...)
	want := "rebasegen: did you mean -n crd-defaults? No namespaced desired object pairs with a live object (1 unpaired), so nothing was compared for them:\n" +
		"  crd-defaults.rebasegen.dev/Backup wrong/nightly (the live objects hold it in namespace crd-defaults: did you mean -n crd-defaults?)\n"
	if r.code != exitError || r.stderr != want {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 1 and:\n%s", r.code, r.stderr, want)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("%s written (%v)", out, err)
	}
	// the right namespace pairs both
	fix[5] = "crd-defaults"
	if r := rebasegen(t, append([]string{"generate", "--output-file", out}, fix...)...); r.code != 0 || strings.Contains(r.stderr, "did you mean") {
		t.Errorf("-n crd-defaults: exit %d\n%s", r.code, r.stderr)
	}
}

// --package-install NAMESPACE/NAME puts the PackageInstall in another namespace than the objects
// (its spec.defaultNamespace): generate's Secret and the kubectl annotate command it suggests go
// into the PackageInstall's namespace, the rules keep naming the objects' (-n), and the file
// regenerates as written; capture reads the kapp app NAME.app in that namespace. It was refused as
// not a Kubernetes name.
func TestPackageInstallInAnotherNamespace(t *testing.T) {
	fix := scenario(t, "hpa-replicas")
	dir := t.TempDir()
	out := filepath.Join(dir, "secret.yml")
	r := rebasegen(t, append([]string{"generate", "-o", "secret", "--package-install", "pkgs/shop", "--output-file", out}, fix...)...)
	if r.code != 0 {
		t.Fatalf("generate: exit %d\n%s", r.code, r.stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"#!   kubectl annotate packageinstall shop -n pkgs ext.packaging.carvel.dev/ytt-paths-from-secret-name.0=shop-rebase-rules\n",
		"metadata:\n  name: shop-rebase-rules\n  namespace: pkgs\n",
		"--namespace hpa-replicas --output secret --package-install pkgs/shop --output-file " + out + "\n",
		"kindNamespaceNameMatcher: {kind: Deployment, namespace: hpa-replicas, name: web}",
	} {
		if !strings.Contains(string(data), want) {
			t.Errorf("no %q in\n%s", want, data)
		}
	}
	if r := rebasegen(t, append([]string{"check", "--rules", out}, fix...)...); r.code != 0 {
		t.Errorf("check: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, bad := range []string{"Pkgs/shop", "/shop", "pkgs/", "a/b/c", "a.b/shop"} {
		r := rebasegen(t, append([]string{"generate", "-o", "secret", "--package-install", bad}, fix...)...)
		if r.code != exitError || !strings.HasPrefix(r.stderr, "rebasegen: --package-install \""+bad+"\": not a valid Kubernetes name") || r.stdout != "" {
			t.Errorf("--package-install %s: exit %d\n%s%s", bad, r.code, r.stdout, r.stderr)
		}
	}

	// capture: the app's ConfigMap is read in the PackageInstall's namespace (a server knowing none)
	var mu sync.Mutex
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, req.URL.Path)
		http.NotFound(w, req)
	}))
	defer srv.Close()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	os.WriteFile(kubeconfig, []byte("apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: "+srv.URL+"}\ncontexts:\n- name: c\n  context: {cluster: c, user: u}\nusers:\n- name: u\n  user: {}\ncurrent-context: c\n"), 0o600)
	captured := filepath.Join(dir, "captured") // capture refuses a directory holding the test's other files
	r = rebasegen(t, "capture", "--package-install", "pkgs/shop", "--kubeconfig", kubeconfig, "--output-directory", captured)
	mu.Lock()
	defer mu.Unlock()
	if want := "rebasegen: no kapp app shop.app in namespace pkgs"; r.code != exitError || !strings.HasPrefix(r.stderr, want) || !slices.Contains(asked, "/api/v1/namespaces/pkgs/configmaps/shop.app") {
		t.Errorf("capture: exit %d, asked %q, stderr:\n%s\nwant %q", r.code, asked, r.stderr, want)
	}
	r = rebasegen(t, "capture", "--package-install", "pkgs/shop", "-n", "other", "--kubeconfig", kubeconfig, "--output-directory", captured)
	if want := "rebasegen: --package-install pkgs/shop and --namespace other: give the namespace once"; r.code != exitError || !strings.HasPrefix(r.stderr, want) {
		t.Errorf("capture with another -n: exit %d, stderr:\n%s\nwant %q", r.code, r.stderr, want)
	}
}

// lint -r DIR (check -r too) names a directory of ytt rules a directory: it was "rendering rules
// file DIR with ytt".
func TestYTTRulesDirectoryError(t *testing.T) {
	dir := t.TempDir()
	data := "#@ load(\"@ytt:data\", \"data\")\napiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nrebaseRules:\n- paths: [[spec, replicas]]\n  type: copy\n  sources: [existing]\n  resourceMatchers:\n  - kindNamespaceNameMatcher:\n      kind: Deployment\n      namespace: #@ data.values.ns + 1\n      name: web\n"
	if err := os.WriteFile(filepath.Join(dir, "rules.yml"), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"lint", "-r", dir, "--value", "ns=x"}, append([]string{"check", "-r", dir, "--value", "ns=x"}, scenario(t, "hpa-replicas")...)} {
		r := rebasegen(t, args...)
		if want := "rebasegen: rendering rules directory " + dir + " with ytt:"; r.code != exitError || !strings.HasPrefix(r.stderr, want) {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant %q", args[0], r.code, r.stderr, want)
		}
	}
}

// lint -o json writes only its JSON to stdout (a program reads it) and its human summary to
// stderr, once; the text format writes both to stdout.
func TestLintJSONOnStdoutSummaryOnStderr(t *testing.T) {
	rules := filepath.Join("..", "..", "fixtures", "lint", "invalid-type", "rules.yml")
	r := rebasegen(t, "lint", "-r", rules, "-o", "json")
	var got struct{ Findings []json.RawMessage }
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&struct {
		Version  int
		Findings *[]json.RawMessage
	}{Findings: &got.Findings}); err != nil || dec.More() || len(got.Findings) != 1 {
		t.Errorf("stdout is not one JSON document with one finding (%v):\n%s", err, r.stdout)
	}
	if rest, _ := io.ReadAll(dec.Buffered()); strings.TrimSpace(string(rest)) != "" {
		t.Errorf("stdout holds more than the JSON: %q", rest)
	}
	if r.code != exitLint || r.stderr != "1 error, 0 warnings\n" {
		t.Errorf("exit %d, stderr %q; want 4 and the summary", r.code, r.stderr)
	}
}

// -l given a package's config directory (ytt templates) says that -l takes the live objects and
// the package goes to --package (it was "field metadata.name: missing" and nothing more).
func TestYTTTemplateAsLive(t *testing.T) {
	dir := filepath.Join("..", "..", "fixtures", "packages", "hpa-web", "config")
	want := "\n--live " + dir + " holds ytt templates (#@ annotations): --live takes the live objects as the cluster returns them (kubectl get -o yaml --show-managed-fields, or rebasegen capture); a package goes to --package " + dir + " (data values with --values, --value)\n"
	for _, args := range [][]string{{"explain", "-d", scenario(t, "hpa-replicas")[1], "-l", dir}, {"generate", "--package", dir, "-l", dir}} {
		if r := rebasegen(t, args...); r.code != exitError || !strings.Contains(r.stderr, want) || r.stdout != "" {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant exit 1 and %q", args[0], r.code, r.stderr, want)
		}
	}
}

// A stale report names the inputs its Regenerate line records that the check did not give, and
// those the check gave that it does not record (a forgotten --values, another --value): it said
// only that the file would change.
func TestStaleNamesTheInputsUnlikeTheRegenerateLine(t *testing.T) {
	dir := t.TempDir()
	config, values := copyPackage(t, dir)
	rules := filepath.Join(config, "rebase-rules.yml")
	live := scenario(t, "hpa-replicas")[3]
	if r := rebasegen(t, "generate", "--package", config, "--values", values, "-l", live, "-n", "hpa-replicas", "--output-file", rules); r.code != 0 {
		t.Fatalf("generate: exit %d\n%s", r.code, r.stderr)
	}
	// a hand edit: the file is stale whatever the value (a value changing what the package
	// renders alone is a change made in Git not deployed yet: not stale)
	text, err := os.ReadFile(rules)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(text), "  - [spec, {regex: \"^(progressDeadlineSeconds|revisionHistoryLimit|strategy)$\"}]\n", "", 1)
	if err := os.WriteFile(rules, []byte(edited), 0o644); err != nil || edited == string(text) {
		t.Fatalf("editing the rules: %v\n%s", err, text)
	}
	// the recorded inputs, paths written otherwise, and a value more: the value named
	r := rebasegen(t, "check", "--package", config+"/", "--values", filepath.Join(dir, ".", "values.yml"), "-l", live, "-n", "hpa-replicas", "--rules", rules, "--value", "name=shop")
	if want := "; the inputs differ from its Regenerate line's: --value name=shop (this check only):\n"; !strings.Contains(r.stdout, want) {
		t.Errorf("exit %d, stdout:\n%s\nwant %q", r.code, r.stdout, want)
	}
	// --values forgotten
	check := []string{"check", "--package", config, "-l", live, "-n", "hpa-replicas", "--rules", rules, "--value", "name=shop"}
	r = rebasegen(t, check...)
	want := "stale: " + rules + " would change (line 36); the inputs differ from its Regenerate line's: --values " + values + " (Regenerate line only), --value name=shop (this check only):\n"
	if r.code != exitPending || !strings.Contains(r.stdout, want) {
		t.Errorf("exit %d, stdout:\n%s\nwant %q", r.code, r.stdout, want)
	}
	r = rebasegen(t, append(check, "-o", "json")...)
	var j struct{ Stale []struct{ Inputs []string } }
	if err := json.Unmarshal([]byte(r.stdout), &j); err != nil || len(j.Stale) != 1 ||
		!slices.Equal(j.Stale[0].Inputs, []string{"--values " + values + " (Regenerate line only)", "--value name=shop (this check only)"}) {
		t.Errorf("json (%v): %+v\n%s", err, j, r.stdout)
	}
}

// check -o github ends with one ::notice:: summary line, so that a passing run says so in the
// job's log (it printed nothing); a failing one has it after the annotations.
func TestCheckGitHubSummaryNotice(t *testing.T) {
	fix := scenario(t, "hpa-replicas")
	rules := filepath.Join(t.TempDir(), "rules.yml")
	if r := rebasegen(t, append([]string{"generate", "--output-file", rules}, fix...)...); r.code != 0 {
		t.Fatalf("generate: exit %d\n%s", r.code, r.stderr)
	}
	r := rebasegen(t, append([]string{"check", "-o", "github", "--rules", rules}, fix...)...)
	want := "::notice::check: kapp keeps 2/2 paired resources; 0 residual ghost diffs, 0 unknown fields, 0 stale generated files, 0 drift warnings, lint: 0 errors, 0 warnings\n"
	if r.code != 0 || r.stdout != want {
		t.Errorf("passing: exit %d, stdout:\n%s\nwant:\n%s", r.code, r.stdout, want)
	}
	classic := filepath.Join("..", "..", "fixtures", "lint", "hpa-replicas-all-deployments", "rules.yml")
	r = rebasegen(t, append([]string{"check", "-o", "github", "--rules", classic}, fix...)...)
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if last := lines[len(lines)-1]; r.code != exitPending || !strings.HasPrefix(lines[0], "::error ") || !strings.HasPrefix(last, "::notice::check: kapp keeps 0/2 paired resources; 13 residual ghost diffs") || strings.Count(r.stdout, "::notice::") != 1 {
		t.Errorf("failing: exit %d, stdout:\n%s", r.code, r.stdout)
	}
}

// check -o github annotates a drift and a pending change where they were made, not at the rules
// file's line 1: the field's line in the desired file (a field only the live object holds: its
// nearest parent the manifest declares, newcomer14 N14-4); for a package, the values file line
// declaring the pending value; the template's line reading it when no values file tells (a --value
// flag, newcomer16 N16-4). Each carries its evidence.
func TestCheckGitHubAnnotatesWhereTheChangeWasMade(t *testing.T) {
	dir := t.TempDir()
	at := func(args []string, want ...string) {
		t.Helper()
		r := rebasegen(t, append([]string{"check", "-o", "github"}, args...)...)
		for _, w := range want {
			if !strings.Contains(r.stdout, w) {
				t.Errorf("%v: exit %d, no %q in\n%s%s", args, r.code, w, r.stdout, r.stderr)
			}
		}
	}
	drift := scenario(t, "human-drift")
	rules := filepath.Join(dir, "drift.yml")
	if r := rebasegen(t, append([]string{"generate", "--output-file", rules}, drift...)...); r.code != 0 {
		t.Fatalf("generate: exit %d\n%s", r.code, r.stderr)
	}
	at(append([]string{"-r", rules}, drift...),
		// fixtures/human-drift/desired.yaml: line 6 "  log-level: info"; env[name=DEBUG] is the live
		// object's alone, line 26 "        env:" the list holding it
		"::warning file="+drift[1]+",line=6::drift: core/ConfigMap human-drift/shop-config data.log-level: ",
		"::warning file="+drift[1]+",line=26::drift: apps/Deployment human-drift/shop spec.template.spec.containers[name=shop].env[name=DEBUG]: ")

	fix := scenario(t, "hpa-replicas")
	data, err := os.ReadFile(fix[1])
	if err != nil {
		t.Fatal(err)
	}
	bumped := filepath.Join(dir, "bumped.yaml")
	os.WriteFile(bumped, []byte(strings.Replace(string(data), "nginx:1.25", "nginx:1.27", 1)), 0o644)
	config, values := copyPackage(t, dir)
	rules = filepath.Join(dir, "rules.yml")
	if r := rebasegen(t, "generate", "--package", config, "--values", values, "-l", fix[3], "-n", fix[5], "--output-file", rules); r.code != 0 {
		t.Fatalf("generate: exit %d\n%s", r.code, r.stderr)
	}
	pending := "pending change from Git (kapp applies it on deploy): apps/Deployment hpa-replicas/web spec.template.spec.containers[name=web].image: "
	at([]string{"-r", rules, "-d", bumped, "-l", fix[3], "-n", fix[5]}, "::warning file="+bumped+",line=19::"+pending) // "        image: nginx:1.27"
	os.WriteFile(values, []byte("# the image\n---\nname: web\nimage: nginx:1.27\n"), 0o644)
	at([]string{"-r", rules, "--package", config, "--values", values, "-l", fix[3], "-n", fix[5]}, "::warning file="+values+",line=4::"+pending)
	os.WriteFile(values, []byte("image: nginx:1.25\n"), 0o644)
	// hpa-web's config/app.yml line 21: "        image: #@ v.image"
	at([]string{"-r", rules, "--package", config, "--values", values, "--value", "image=nginx:1.27", "-l", fix[3], "-n", fix[5]}, "::warning file="+filepath.Join(config, "app.yml")+",line=21::"+pending)
}

// check -o github annotates a pending create (a document Git adds, kapp would create) at that
// document's line, as a pending change, not at the rules file's line 1 (which did not cause it);
// for a package's rendering (no file's lines), at the template's document (newcomer16 N16-4).
func TestCheckGitHubAnnotatesAPendingCreateWhereItWasMade(t *testing.T) {
	dir := t.TempDir()
	fix := scenario(t, "hpa-replicas")
	rules := filepath.Join(dir, "rules.yml")
	if r := rebasegen(t, append([]string{"generate", "--output-file", rules}, fix...)...); r.code != 0 {
		t.Fatalf("generate: exit %d\n%s", r.code, r.stderr)
	}
	data, err := os.ReadFile(fix[1])
	if err != nil {
		t.Fatal(err)
	}
	added := string(data) + "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: added\ndata:\n  a: b\n"
	line := slices.Index(strings.Split(added, "\n"), "apiVersion: v1") // 1-based: the "---" opening it, where documents start
	if line < 2 {
		t.Fatalf("no added document in\n%s", added)
	}
	desired := filepath.Join(dir, "desired.yaml")
	if err := os.WriteFile(desired, []byte(added), 0o644); err != nil {
		t.Fatal(err)
	}
	// a change made in Git: a warning (newcomer15 N15-1)
	create := "pending create, not compared: core/ConfigMap hpa-replicas/added: no live counterpart"
	r := rebasegen(t, "check", "-o", "github", "-r", rules, "-d", desired, "-l", fix[3], "-n", fix[5])
	if want := fmt.Sprintf("::warning file=%s,line=%d::%s", desired, line, create); r.code != 0 || !strings.Contains(r.stdout, want) {
		t.Errorf("exit %d, no %q in\n%s%s", r.code, want, r.stdout, r.stderr)
	}

	config, values := copyPackage(t, dir)
	// a plain document among the templates
	if err := os.WriteFile(filepath.Join(config, "added.yml"), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: added\ndata:\n  a: b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = rebasegen(t, "check", "-o", "github", "-r", rules, "--package", config, "--values", values, "-l", fix[3], "-n", fix[5], "--fail-on-create")
	if want := "::error file=" + filepath.Join(config, "added.yml") + ",line=1::" + create; r.code != exitPending || !strings.Contains(r.stdout, want) {
		t.Errorf("package: exit %d, no %q in\n%s%s", r.code, want, r.stdout, r.stderr)
	}
}

// A pending value of a package's rendering is annotated at the values file line of the data value
// that feeds the field, found by rendering the package with each data value of the same text
// changed: not the only line holding the text (a data value the templates do not use for the
// field), and not no line when two data values hold it and only one feeds it.
func TestCheckGitHubAnnotatesTheDataValueThatFeedsThePendingField(t *testing.T) {
	dir := t.TempDir()
	fix := scenario(t, "hpa-replicas")
	config, values := copyPackage(t, dir)
	rules := filepath.Join(dir, "rules.yml")
	if r := rebasegen(t, "generate", "--package", config, "--values", values, "-l", fix[3], "-n", fix[5], "--output-file", rules); r.code != 0 {
		t.Fatalf("generate: exit %d\n%s", r.code, r.stderr)
	}
	schema := filepath.Join(config, "schema.yml")
	data, err := os.ReadFile(schema)
	if err != nil {
		t.Fatal(err)
	}
	// a data value no template reads
	if err := os.WriteFile(schema, append(data, "sidecar: \"\"\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	pending := "pending change from Git (kapp applies it on deploy): apps/Deployment hpa-replicas/web spec.template.spec.containers[name=web].image: "
	check := func(values string, want string) {
		t.Helper()
		r := rebasegen(t, "check", "-o", "github", "-r", rules, "--package", config, "--values", values, "-l", fix[3], "-n", fix[5])
		if !strings.Contains(r.stdout, want) {
			t.Errorf("%s: exit %d, no %q in\n%s%s", values, r.code, want, r.stdout, r.stderr)
		}
	}
	both := filepath.Join(dir, "both.yml")
	os.WriteFile(both, []byte("sidecar: nginx:1.27\n# the image\nimage: nginx:1.27\n"), 0o644)
	check(both, "::warning file="+both+",line=3::"+pending)

	// the image from the schema's default; the one line holding its text is another data value:
	// the template's line reading it (hpa-web's config/app.yml line 21)
	if err := os.WriteFile(schema, []byte(strings.Replace(string(data), "image: nginx:latest", "image: nginx:1.27", 1)+"sidecar: \"\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other.yml")
	os.WriteFile(other, []byte("sidecar: nginx:1.27\n"), 0o644)
	check(other, "::warning file="+filepath.Join(config, "app.yml")+",line=21::"+pending)
}

// Regression (newcomer24 finding 13): rules written with "> FILE" (stdout, generate's default)
// record a Regenerate line that prints them: running it, as the README's recipe does, left the
// file stale, and check said only "regenerate it with the command in its header". A stale file
// whose line writes to stdout is named with the command that regenerates it in place (text,
// github), and that command does; a file generated with --output-file needs no such hint.
func TestStaleRulesWrittenToStdoutNameTheCommandInPlace(t *testing.T) {
	dir := t.TempDir()
	fix := scenario(t, "hpa-replicas")
	manifest, err := os.ReadFile(fix[1])
	if err != nil {
		t.Fatal(err)
	}
	desired := filepath.Join(dir, "desired.yaml")
	if err := os.WriteFile(desired, manifest, 0o644); err != nil {
		t.Fatal(err)
	}
	in := append([]string{"-d", desired}, fix[2:]...)
	rules := filepath.Join(dir, "rules.yml")
	r := rebasegen(t, append([]string{"generate"}, in...)...)
	if err := os.WriteFile(rules, []byte(r.stdout), 0o644); r.code != 0 || err != nil {
		t.Fatalf("generate > rules.yml: exit %d (%v)\n%s", r.code, err, r.stderr)
	}
	// the port's protocol copy dropped by hand: the rules are stale
	changed := strings.Replace(r.stdout, "  - [spec, template, spec, containers, {allIndexes: true}, ports, {allIndexes: true}, protocol]\n", "", 1)
	if err := os.WriteFile(rules, []byte(changed), 0o644); err != nil || changed == r.stdout {
		t.Fatalf("editing the rules: %v", err)
	}
	check := append([]string{"check", "--rules", rules}, in...)
	cmd := "rebasegen generate --desired " + desired + " --live " + fix[3] + " --namespace hpa-replicas --output-file " + rules
	r = rebasegen(t, check...)
	if want := "its header's Regenerate line writes the rules to stdout (generated with > FILE): regenerate it in place with " + cmd + "\n"; r.code != exitPending || !strings.Contains(r.stdout, want) {
		t.Errorf("text: exit %d, want %q in:\n%s", r.code, want, r.stdout)
	}
	r = rebasegen(t, append(check, "-o", "github")...)
	if want := "::error file=" + rules + ",line="; !strings.Contains(r.stdout, want) || !strings.Contains(r.stdout, "regenerate it in place with "+cmd) {
		t.Errorf("github: want the stale annotation naming %q:\n%s", cmd, r.stdout)
	}
	// the command regenerates the file in place, with --output-file: no hint once stale again
	o, err := emit.ParseCommand(cmd)
	if err != nil {
		t.Fatal(err)
	}
	if r = rebasegen(t, append([]string{"generate"}, o.Args()...)...); r.code != 0 || r.stdout != "" {
		t.Fatalf("%s: exit %d, stdout %q\n%s", cmd, r.code, r.stdout, r.stderr)
	}
	if r = rebasegen(t, check...); r.code != 0 {
		t.Errorf("after %s: exit %d\n%s", cmd, r.code, r.stdout)
	}
	regenerated, err := os.ReadFile(rules)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rules, []byte(strings.Replace(string(regenerated), "  - [spec, template, spec, containers, {allIndexes: true}, ports, {allIndexes: true}, protocol]\n", "", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if r = rebasegen(t, check...); r.code != exitPending || strings.Contains(r.stdout, "in place") || !strings.Contains(r.stdout, "stale: "+rules) {
		t.Errorf("generated with --output-file, stale: want no in-place hint, exit %d:\n%s", r.code, r.stdout)
	}
}
