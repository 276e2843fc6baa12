package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The common mistakes of a newcomer's first hour (issue 24 point 8): each is said, with what to
// do instead.

// TestYTTTemplateAsDesired: a ytt template directory given as --desired is named with --package
// (it was "field metadata.name: missing" and nothing more).
func TestYTTTemplateAsDesired(t *testing.T) {
	dir := filepath.Join("..", "..", "fixtures", "packages", "hpa-web", "config")
	r := rebasegen(t, "explain", "-d", dir, "-l", scenario(t, "hpa-replicas")[3])
	if want := "--desired " + dir + " holds ytt templates (#@ annotations): render them with --package " + dir; r.code != exitError || !strings.Contains(r.stderr, want) {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 1 and %q", r.code, r.stderr, want)
	}
}

// TestSwappedDesiredLive: -d and -l given each other's files is said (it was read as is, and
// explain exited 0 with a "did you mean -n" for a blank namespace).
func TestSwappedDesiredLive(t *testing.T) {
	fix := scenario(t, "hpa-replicas")
	r := rebasegen(t, "explain", "-d", fix[3], "-l", fix[1])
	if r.code != exitError || !strings.Contains(r.stderr, "are --desired and --live swapped? "+fix[3]+": document 1") || r.stdout != "" {
		t.Errorf("exit %d, stdout %d bytes, stderr:\n%s", r.code, len(r.stdout), r.stderr)
	}
	// live objects as desired, and the same as live, are not called swapped (TestLiveAsDesired)
	if r := rebasegen(t, "explain", "-d", fix[3], "-l", fix[3]); strings.Contains(r.stderr, "swapped") {
		t.Errorf("the live objects as both: exit %d\n%s", r.code, r.stderr)
	}
}

// TestLiveAsDesired: the capture given as --desired too (or a copy of it) is one error saying
// what to do, in explain, generate and check (newcomer5 F4: generate printed 297 lines of
// residual ghost diffs and "kapp's first deploy fails here", explain said all zeros, exit 0).
// Objects from the API server without kapp's marks (a manifest exported with kubectl get) are
// still read as desired.
func TestLiveAsDesired(t *testing.T) {
	fix := scenario(t, "hpa-replicas")
	live := fix[3]
	copied := filepath.Join(t.TempDir(), "live-copy.yaml")
	data, err := os.ReadFile(live)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(copied, data, 0o644); err != nil {
		t.Fatal(err)
	}
	rules := filepath.Join(t.TempDir(), "rules.yml")
	if r := rebasegen(t, append([]string{"generate", "--output-file", rules}, fix...)...); r.code != 0 {
		t.Fatalf("generate: exit %d\n%s", r.code, r.stderr)
	}
	for _, args := range [][]string{{"explain"}, {"generate", "--output-file", filepath.Join(t.TempDir(), "out.yml")}, {"check", "--rules", rules}} {
		for _, desired := range []string{live, copied} {
			r := rebasegen(t, append(args, "-d", desired, "-l", live, "-n", "hpa-replicas")...)
			want := "rebasegen: --desired " + desired + ": document 1 (line 1): apps/Deployment hpa-replicas/web was read from the cluster after kapp deployed it"
			if r.code != exitError || r.stdout != "" || !strings.Contains(r.stderr, "was read from the cluster after kapp deployed it") ||
				!strings.Contains(r.stderr, "leave --desired out") || strings.Count(r.stderr, "\n") > 3 {
				t.Errorf("%s -d %s: exit %d, stdout %d bytes, stderr:\n%s\nwant exit 1 and %q...", args[0], desired, r.code, len(r.stdout), r.stderr, want)
			}
		}
	}
	// without kapp's marks: an object exported with kubectl get is read as a manifest
	exported := filepath.Join(t.TempDir(), "exported.yaml")
	stripped := regexp.MustCompile(`(?m)^ *kapp\.k14s\.io/(original|association|identity|original-diff-md5)[^\n]*\n`).ReplaceAll(data, nil)
	if err := os.WriteFile(exported, stripped, 0o644); err != nil {
		t.Fatal(err)
	}
	if r := rebasegen(t, "explain", "-d", exported, "-l", live, "-n", "hpa-replicas"); strings.Contains(r.stderr, "read from the cluster after kapp") {
		t.Errorf("an exported manifest refused:\n%s", r.stderr)
	}
}

// TestLiveWithoutManagedFields: live objects read without --show-managed-fields get a warning
// saying how to read them, in explain, generate and check; with them, none.
func TestLiveWithoutManagedFields(t *testing.T) {
	fix := scenario(t, "export-without-managedfields")
	want := "warning: 5 of 5 live objects carry no metadata.managedFields, the evidence of who set each field: read them with kubectl get -o yaml --show-managed-fields"
	rules := filepath.Join(t.TempDir(), "rules.yml")
	for _, args := range [][]string{{"explain"}, {"generate", "--output-file", rules}, {"check", "--rules", rules}} {
		if r := rebasegen(t, append(args, fix...)...); !strings.Contains(r.stderr, want) {
			t.Errorf("%s: no warning; stderr:\n%s", args[0], r.stderr)
		}
		if r := rebasegen(t, append(args[:1], scenario(t, "hpa-replicas")...)...); strings.Contains(r.stderr, "managedFields") {
			t.Errorf("%s: a warning for live objects with managedFields:\n%s", args[0], r.stderr)
		}
	}
}

// TestWrongNamespaceHint: explain with a -n where nothing is live says where the live objects
// are (it listed "kapp would create it" for each and exited 0 without a word).
func TestWrongNamespaceHint(t *testing.T) {
	fix := scenario(t, "hpa-replicas")
	fix[5] = "wrong"
	r := rebasegen(t, append([]string{"explain"}, fix...)...)
	want := "note: apps/Deployment wrong/web, autoscaling/HorizontalPodAutoscaler wrong/web: not among the live objects, but they hold them in namespace hpa-replicas: did you mean -n hpa-replicas?\n"
	if !strings.Contains(r.stderr, want) {
		t.Errorf("stderr:\n%s\nwant %q", r.stderr, want)
	}
}

// TestYTTRulesFileError: a ytt-format rules file that fails to render is called a rules file,
// not a package (there is none). (A data value not given has its own message:
// TestYTTRulesNeedAValue.)
func TestYTTRulesFileError(t *testing.T) {
	rules := filepath.Join(t.TempDir(), "rules.yml")
	data := "#@ load(\"@ytt:data\", \"data\")\napiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nrebaseRules:\n- paths: [[spec, replicas]]\n  type: copy\n  sources: [existing]\n  resourceMatchers:\n  - kindNamespaceNameMatcher:\n      kind: Deployment\n      namespace: #@ data.values.ns + 1\n      name: web\n"
	if err := os.WriteFile(rules, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	r := rebasegen(t, append([]string{"check", "--rules", rules, "--value", "ns=x"}, scenario(t, "hpa-replicas")...)...)
	if want := "rebasegen: rendering rules file " + rules + " with ytt:"; r.code != exitError || !strings.HasPrefix(r.stderr, want) || strings.Contains(r.stderr, "package") {
		t.Errorf("exit %d, stderr:\n%s\nwant %q, and no package", r.code, r.stderr, want)
	}
}

// TestCaptureFlags: --app and --package-install together are an error (one was ignored); a
// kubeconfig $KUBECONFIG names that does not exist is said (client-go's message was about
// KUBERNETES_MASTER); capture's help says it saves the CRDs.
func TestCaptureFlags(t *testing.T) {
	dir := t.TempDir()
	r := rebasegen(t, "capture", "--app", "a", "--package-install", "b", "--output-directory", dir)
	if want := "rebasegen: --app a and --package-install b: give one"; r.code != exitError || !strings.HasPrefix(r.stderr, want) {
		t.Errorf("--app with --package-install: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	missing := filepath.Join(dir, "no-such-kubeconfig")
	t.Setenv("KUBECONFIG", missing)
	t.Setenv("KUBERNETES_SERVICE_HOST", "") // not in-cluster
	r = rebasegen(t, "capture", "--app", "a", "--output-directory", dir)
	if want := "rebasegen: no kubeconfig: " + missing + " (from $KUBECONFIG) does not exist"; r.code != exitError || !strings.HasPrefix(r.stderr, want) || strings.Contains(r.stderr, "KUBERNETES_MASTER") {
		t.Errorf("missing $KUBECONFIG file: exit %d, stderr:\n%s\nwant %q", r.code, r.stderr, want)
	}
	if r := rebasegen(t, "capture", "--help"); !strings.Contains(strings.Join(strings.Fields(r.stdout), " "), "the CRDs of its custom resources into crds.yaml") {
		t.Errorf("capture's help does not say it saves CRDs:\n%s", r.stdout)
	}
}

// TestCheckRulesShortFlag: check takes -r for --rules, as lint does.
func TestCheckRulesShortFlag(t *testing.T) {
	fix := scenario(t, "hpa-replicas")
	rules := filepath.Join(t.TempDir(), "rules.yml")
	if r := rebasegen(t, append([]string{"generate", "--output-file", rules}, fix...)...); r.code != 0 {
		t.Fatalf("generate: exit %d\n%s", r.code, r.stderr)
	}
	long, short := rebasegen(t, append([]string{"check", "--rules", rules}, fix...)...), rebasegen(t, append([]string{"check", "-r", rules}, fix...)...)
	if short.code != 0 || short != long {
		t.Errorf("check -r: exit %d\n%s%s\ncheck --rules: exit %d\n%s%s", short.code, short.stdout, short.stderr, long.code, long.stdout, long.stderr)
	}
}

// TestHelpExitStatuses: generate's and check's help list the exit statuses of README's tables,
// in the same words.
func TestHelpExitStatuses(t *testing.T) {
	data, err := os.ReadFile(readmeFile)
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("^\\| (\\d) \\| (.*) \\|$")
	for cmd, exits := range map[string][]string{"generate": generateExits, "check": checkExits} {
		_, section, _ := strings.Cut(string(data), "\n### `rebasegen "+cmd+"`")
		section, _, _ = strings.Cut(section, "\n### ")
		var table []string
		for _, l := range strings.Split(section, "\n") {
			if m := row.FindStringSubmatch(l); m != nil {
				table = append(table, m[1]+" "+strings.ReplaceAll(m[2], "`", ""))
			}
		}
		if strings.Join(table, "\n") != strings.Join(exits, "\n") {
			t.Errorf("%s: README's exit statuses:\n%s\nthe help's:\n%s", cmd, strings.Join(table, "\n"), strings.Join(exits, "\n"))
		}
		r := rebasegen(t, cmd, "--help")
		if _, statuses, _ := helpSections(r.stdout); len(statuses) != len(exits) {
			t.Errorf("%s --help lists %v", cmd, statuses)
		}
	}
}

// TestOutputFileNotGenerated: generate --output-file naming an existing file rebasegen did not
// generate (hand-written rules, with their comments) refuses it and leaves it as it was, for
// either target (newcomer5 F6: it was replaced without a word, outside a package directory);
// a file rebasegen generated, in any output format, is replaced, and so is an empty one.
func TestOutputFileNotGenerated(t *testing.T) {
	fix := scenario(t, "hpa-replicas")
	hand, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "lint", "hpa-replicas-all-deployments", "rules.yml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, target := range [][]string{{}, {"--target", "argocd"}} {
		out := filepath.Join(dir, "handwritten.yml")
		if err := os.WriteFile(out, hand, 0o644); err != nil {
			t.Fatal(err)
		}
		r := rebasegen(t, append(append([]string{"generate", "--output-file", out}, target...), fix...)...)
		want := "rebasegen: --output-file " + out + ": the file exists and rebasegen did not generate it"
		if got, _ := os.ReadFile(out); r.code != exitError || !strings.HasPrefix(r.stderr, want) || string(got) != string(hand) {
			t.Errorf("%v: exit %d, file kept %v, stderr:\n%s\nwant exit 1 and %q", target, r.code, string(got) == string(hand), r.stderr, want)
		}
	}
	for _, args := range [][]string{{}, {"-o", "ytt", "--namespace-value", "namespace"}, {"-o", "secret", "--package-install", "hpa-replicas/shop"},
		{"--target", "argocd"}, {"--target", "argocd", "-o", "argocd-cm"}} {
		out := filepath.Join(dir, "out.yml")
		if err := os.WriteFile(out, []byte("\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		for i := range 2 { // the empty file, then the generated one
			if r := rebasegen(t, append(append([]string{"generate", "--output-file", out}, args...), fix...)...); r.code != 0 {
				t.Errorf("%v, run %d: exit %d\n%s", args, i+1, r.code, r.stderr)
			}
		}
	}
}

// TestKappMarkedWithoutManagedFields: live objects read without managedFields but carrying kapp's
// labels and kapp.k14s.io/original are said to be kapp's, with how to read who set each field
// (newcomer5 F8: each was "applied by no known applier"); with managedFields, kapp is named by
// its entry as before.
func TestKappMarkedWithoutManagedFields(t *testing.T) {
	r := rebasegen(t, append([]string{"explain"}, scenario(t, "export-without-managedfields")...)...)
	line := regexp.MustCompile(`(?m)^\S.*\(apps/v1, applied by ([^)]*)\)$`)
	m := line.FindStringSubmatch(strings.ReplaceAll(r.stdout, "\n    ", " "))
	want := "kapp, per its kapp.k14s.io labels and annotations; without managedFields: kubectl get --show-managed-fields says who set each field"
	if m == nil || m[1] != want || strings.Contains(r.stdout, "no known applier") {
		t.Errorf("stdout:\n%s\nwant the Deployment applied by %q, and no resource by no known applier", r.stdout, want)
	}
	r = rebasegen(t, append([]string{"explain"}, scenario(t, "hpa-replicas")...)...)
	if !strings.Contains(r.stdout, "apps/Deployment hpa-replicas/web (apps/v1, applied by kapp)\n") {
		t.Errorf("with managedFields:\n%s", r.stdout)
	}
}

// TestWordingNewcomer5: the wording of newcomer5 F7, each through the CLI: a report format given
// as generate's --output names --report; a switch given a value says what it takes; a kapp
// Config given to the Argo CD target has no blank name and says which target takes it; a count
// of one is singular; a document that is a list names kind: List; generate --report github
// locates a pending change as check -o github does; lint -o github ends with a notice.
func TestWordingNewcomer5(t *testing.T) {
	fix := scenario(t, "hpa-replicas")
	dir := t.TempDir()
	write := func(name, text string) string { return writeIn(t, dir, name, text) }
	contains := func(what string, r result, stream, want string) {
		t.Helper()
		if !strings.Contains(stream, want) {
			t.Errorf("%s: exit %d, stdout:\n%s\nstderr:\n%s\nwant %q", what, r.code, r.stdout, r.stderr, want)
		}
	}
	r := rebasegen(t, append([]string{"generate", "-o", "json"}, fix...)...)
	contains("generate -o json", r, r.stderr, `--output: want config, ytt or secret, got "json": --output is the rules' format; generate's verdict in json is --report json`)

	rules := filepath.Join(dir, "rules.yml")
	if r := rebasegen(t, append([]string{"generate", "--output-file", rules}, fix...)...); r.code != 0 {
		t.Fatalf("generate: %s", r.stderr)
	}
	r = rebasegen(t, append([]string{"check", "--rules", rules, "--fail-on-drift=maybe"}, fix...)...)
	contains("--fail-on-drift=maybe", r, r.stderr, `invalid value "maybe" for --fail-on-drift: a switch takes true or false (--fail-on-drift=true), or nothing (--fail-on-drift)`)

	r = rebasegen(t, append([]string{"check", "--target", "argocd", "--rules", rules}, fix[:4]...)...)
	contains("a kapp Config as Argo CD settings", r, r.stderr, ": Config is neither an Argo CD Application nor the argocd-cm ConfigMap: kapp's rules are for the kapp target (leave --target argocd out)")

	// one drifted resource: the human-drift fixture's ConfigMap alone
	drift := scenario(t, "human-drift")
	desired, err := os.ReadFile(drift[1])
	if err != nil {
		t.Fatal(err)
	}
	cm := strings.SplitN(string(desired), "\n---\n", 2)[0]
	if !strings.Contains(cm, "kind: ConfigMap") {
		t.Fatalf("the fixture's first document is no ConfigMap:\n%s", cm)
	}
	drift[1] = write("cm.yaml", cm+"\n")
	r = rebasegen(t, append([]string{"generate", "--fail-on-drift", "--output-file", filepath.Join(dir, "drift.yml")}, drift...)...)
	contains("one drifted resource", r, r.stderr, "rules written; 1 resource drifted from the desired state (--fail-on-drift)")

	seq := write("seq.yaml", "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a}\n")
	r = rebasegen(t, "explain", "-d", seq, "-l", fix[3])
	contains("a YAML sequence of objects", r, r.stderr, "document 1 (line 1): not a Kubernetes object: the document is a list (a YAML sequence or JSON array), not a mapping: put the objects under items of a kind: List")
	if strings.Contains(r.stderr, "interface") {
		t.Errorf("a Go type named: %s", r.stderr)
	}

	bumped := write("bumped.yaml", strings.Replace(readFile(t, fix[1]), "image: nginx:1.25", "image: nginx:1.26", 1))
	args := []string{"-d", bumped, "-l", fix[3], "-n", fix[5]}
	r = rebasegen(t, append([]string{"generate", "--report", "github", "--output-file", filepath.Join(dir, "bumped-rules.yml")}, args...)...)
	contains("generate --report github", r, r.stdout, "::warning file="+bumped+",line=")
	c := rebasegen(t, append([]string{"check", "-o", "github", "--rules", rules}, args...)...)
	pending := func(out string) string {
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, "pending change from Git") {
				return l
			}
		}
		return ""
	}
	if p := pending(r.stdout); p == "" || p != pending(c.stdout) {
		t.Errorf("generate's pending annotation\n%s\ncheck's\n%s", p, pending(c.stdout))
	}

	r = rebasegen(t, "lint", "--rules", lintFixture("invalid-type"), "-o", "github")
	contains("lint -o github", r, r.stdout, "\n::notice::1 error, 0 warnings\n")
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestRegenerateLineFromAnotherDirectory: the paths a Regenerate line records are relative to
// the directory generate ran in; check run from another one (a CI job at the repository's root)
// compares them as files with its own, and names only the inputs that really differ (newcomer5
// F10: every input was listed twice, "Regenerate line only" and "this check only").
func TestRegenerateLineFromAnotherDirectory(t *testing.T) {
	fix := scenario(t, "hpa-replicas")
	repo := t.TempDir()
	sub := filepath.Join(repo, "deploy", "rules")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct{ from, to string }{{fix[1], "desired.yaml"}, {fix[3], "live.yaml"}, {fix[1], "other.yaml"}} {
		data, err := os.ReadFile(f.from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(repo, f.to), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(sub)
	if r := rebasegen(t, "generate", "-d", "../../desired.yaml", "-l", "../../live.yaml", "-n", "hpa-replicas", "--output-file", "rules.yml"); r.code != 0 {
		t.Fatalf("generate: exit %d\n%s", r.code, r.stderr)
	}
	rules, err := os.ReadFile("rules.yml")
	if err != nil {
		t.Fatal(err)
	}
	// a hand edit: the file is stale wherever check runs
	edited := regexp.MustCompile(`(?m)^.*revisionHistoryLimit.*\n`).ReplaceAll(rules, nil)
	if len(edited) == len(rules) {
		t.Fatal("no revisionHistoryLimit rule to remove")
	}
	if err := os.WriteFile("rules.yml", edited, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{repo, sub, filepath.Join(repo, "deploy")} {
		t.Chdir(dir)
		rel := func(p string) string {
			r, err := filepath.Rel(dir, filepath.Join(repo, p))
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		r := rebasegen(t, "check", "-d", rel("desired.yaml"), "-l", rel("live.yaml"), "-n", "hpa-replicas", "--rules", rel("deploy/rules/rules.yml"))
		if want := "stale: " + rel("deploy/rules/rules.yml") + " would change (line "; r.code != exitPending || !strings.Contains(r.stdout, want) || strings.Contains(r.stdout, "the inputs differ") {
			t.Errorf("from %s: exit %d, stdout:\n%s\nwant exit 3, %q and no differing inputs", dir, r.code, r.stdout, want)
		}
		// an input that really differs is still named, and only it
		r = rebasegen(t, "check", "-d", rel("other.yaml"), "-l", rel("live.yaml"), "-n", "hpa-replicas", "--rules", rel("deploy/rules/rules.yml"))
		want := "the inputs differ from its Regenerate line's: --desired ../../desired.yaml (Regenerate line only), --desired " + rel("other.yaml") + " (this check only):"
		if !strings.Contains(r.stdout, want) {
			t.Errorf("from %s, another --desired: stdout:\n%s\nwant %q", dir, r.stdout, want)
		}
	}
}

// TestNotesOnPartialLiveAndUnusedNamespace: a live input holding one of the desired objects (one
// object's kubectl get) is said to be partial, not taken for the cluster; -n given where every
// namespaced desired object declares its namespace is said to place none of them (newcomer7
// N7-9 e, f: both passed without a word).
func TestNotesOnPartialLiveAndUnusedNamespace(t *testing.T) {
	fix := scenario(t, "hpa-statefulset")
	dir := t.TempDir()
	live, err := os.ReadFile(fix[3])
	if err != nil {
		t.Fatal(err)
	}
	desired, err := os.ReadFile(fix[1])
	if err != nil {
		t.Fatal(err)
	}
	docs := strings.Split(string(live), "\n---\n")
	writeFiles(t, dir, map[string][]string{
		"one.yaml":      {docs[len(docs)-1]}, // the HPA alone
		"declared.yaml": {strings.ReplaceAll(string(desired), "\nmetadata:\n", "\nmetadata:\n  namespace: "+fix[5]+"\n")},
	})
	one, declared := filepath.Join(dir, "one.yaml"), filepath.Join(dir, "declared.yaml")
	r := rebasegen(t, "explain", "-d", fix[1], "-l", one, "-n", fix[5])
	if want := "note: 2 of 3 desired objects are not among the live objects"; !strings.Contains(r.stderr, want) {
		t.Errorf("partial live: stderr:\n%s\nwant %q", r.stderr, want)
	}
	if r := rebasegen(t, append([]string{"explain"}, fix...)...); strings.Contains(r.stderr, "not among the live objects") {
		t.Errorf("whole live: a note:\n%s", r.stderr)
	}

	want := "note: -n prod is not used: every namespaced desired object declares its own namespace"
	rules := filepath.Join(dir, "rules.yml")
	for _, cmd := range [][]string{{"explain"}, {"generate", "--output-file", rules}, {"check", "--rules", rules}} {
		if r := rebasegen(t, append(cmd, "-d", declared, "-l", fix[3], "-n", "prod")...); !strings.Contains(r.stderr, want) {
			t.Errorf("%s: stderr:\n%s\nwant %q", cmd[0], r.stderr, want)
		}
		if r := rebasegen(t, append(cmd, fix...)...); strings.Contains(r.stderr, "is not used") {
			t.Errorf("%s, -n placing the objects: a note:\n%s", cmd[0], r.stderr)
		}
	}
}
