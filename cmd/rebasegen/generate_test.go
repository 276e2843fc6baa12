package main

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

var (
	docSep  = regexp.MustCompile(`(?m)^---[ \t]*(#.*)?$`)
	content = regexp.MustCompile(`(?m)^[^#\s]`) // a line that is not blank or a comment
)

// documents splits a fixture file into its documents, dropping comment-only ones.
func documents(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var docs []string
	for _, d := range docSep.Split(string(data), -1) {
		if content.MatchString(d) {
			docs = append(docs, strings.Trim(d, "\n")+"\n")
		}
	}
	return docs
}

// writeFiles replaces dir with the given files, each a list of documents.
func writeFiles(t *testing.T, dir string, files map[string][]string) {
	t.Helper()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, docs := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(strings.Join(docs, "---\n")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDeterministic: generate's output does not depend on the order of the input documents or on
// how they are split into files. Every variant is written to the same two directories, passed as
// -d DIR -l DIR, so the header names the same inputs and the whole output must be byte-identical;
// the run on the fixture files themselves is compared after dropping the two header comment lines,
// which name the inputs. --force: verification is TestGolden's business, here the rules must be
// written even if it fails.
func TestDeterministic(t *testing.T) {
	fix := scenario(t, "package-app")
	desired, live := documents(t, fix[1]), documents(t, fix[3])
	ref := rebasegen(t, append([]string{"generate", "--force"}, fix...)...)
	if ref.stdout == "" {
		t.Fatalf("exit code %d, no output; stderr:\n%s", ref.code, ref.stderr)
	}

	dir := t.TempDir()
	dDir, lDir := filepath.Join(dir, "desired"), filepath.Join(dir, "live")
	reversed := func(docs []string) []string { r := slices.Clone(docs); slices.Reverse(r); return r }
	// shuffled puts every document in a file of its own, named so that the sorted file order is a
	// random permutation of the documents.
	shuffled := func(seed uint64) func([]string) map[string][]string {
		return func(docs []string) map[string][]string {
			r := rand.New(rand.NewPCG(seed, seed))
			files := map[string][]string{}
			for i, pos := range r.Perm(len(docs)) {
				files[fmt.Sprintf("%03d.yaml", pos)] = []string{docs[i]}
			}
			return files
		}
	}
	variants := []struct {
		name  string
		files func([]string) map[string][]string
	}{
		{"one file each, fixture order", func(d []string) map[string][]string { return map[string][]string{"all.yaml": d} }},
		{"one file each, reversed", func(d []string) map[string][]string { return map[string][]string{"all.yaml": reversed(d)} }},
		{"two files each, halves swapped and reversed", func(d []string) map[string][]string {
			return map[string][]string{"a.yml": reversed(d[len(d)/2:]), "b.yaml": reversed(d[:len(d)/2])}
		}},
		{"single-document files, shuffled (seed 1)", shuffled(1)},
		{"single-document files, shuffled (seed 2)", shuffled(2)},
		{"single-document files, shuffled (seed 3)", shuffled(3)},
	}
	var first result
	for i, v := range variants {
		writeFiles(t, dDir, v.files(desired))
		writeFiles(t, lDir, v.files(live))
		r := rebasegen(t, "generate", "--force", "-d", dDir, "-l", lDir, "-n", fix[5])
		if i == 0 {
			first = r
			if got, want := dropHeader(t, r.stdout), dropHeader(t, ref.stdout); got != want {
				t.Errorf("%s: output differs from the run on the fixture files", v.name)
			}
			continue
		}
		if r.code != first.code || r.stdout != first.stdout {
			t.Errorf("%s: exit code %d, %d bytes; %s: exit code %d, %d bytes; outputs differ", v.name, r.code, len(r.stdout),
				variants[0].name, first.code, len(first.stdout))
		}
	}
}

// leaks returns the forms in which s could appear: itself, and the part of its base64 encoding
// that does not depend on what precedes or follows it, for each of the three alignments.
func leaks(s string) []string {
	out := []string{s}
	for pad := 0; pad < 3; pad++ {
		enc := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("x", pad) + s))
		from, to := (pad+2)/3*4, (pad+len(s))/3*4
		out = append(out, enc[from:to])
	}
	return out
}

// TestSecretsDoNotLeak: no value of a Secret, desired or live, plain or base64, reaches stdout,
// stderr or a written file, whatever the command and format.
func TestSecretsDoNotLeak(t *testing.T) {
	const (
		desiredPlain = "MARKER-s3cr3t-VALUE"       // desired stringData
		desiredData  = "MARKER-d4t4-VALUE"         // desired data, base64 in the manifest
		livePassword = "MARKER-l1ve-VALUE"         // live data, differs from the desired value
		liveToken    = "MARKER-l1ve-t0ken-VALUE"   // live data, differs from the desired value
		liveCtrl     = "MARKER-c0ntr0ller-VALUE"   // live data written by a controller
		lastApplied  = "MARKER-l4st-4pplied-VALUE" // only in live's kubectl last-applied-configuration
	)
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	dir := t.TempDir()
	desired := fmt.Sprintf(`apiVersion: v1
kind: Secret
metadata:
  name: creds
type: Opaque
stringData:
  password: %s
data:
  token: %s
---
apiVersion: v1
kind: Secret
metadata: {name: s}
data: {k: YQ==}
`, desiredPlain, b64(desiredData))
	original := fmt.Sprintf(`{"apiVersion":"v1","data":{"token":"%s"},"kind":"Secret","metadata":{"labels":{"kapp.k14s.io/app":"1795322180123296908","kapp.k14s.io/association":"v1.0f8e6b6c1c0f7fa1e0a3c4e5d9b2a7f1"},"name":"creds","namespace":"sec"},"stringData":{"password":"%s"},"type":"Opaque"}`,
		b64(desiredData), desiredPlain)
	live := fmt.Sprintf(`apiVersion: v1
kind: Secret
metadata:
  annotations:
    kapp.k14s.io/identity: v1;sec//Secret/creds;v1
    kapp.k14s.io/original: '%s'
    kapp.k14s.io/original-diff-md5: a7bca38cd1da0153d482420e8b7431e9
  creationTimestamp: "2026-11-22T04:36:21Z"
  labels:
    kapp.k14s.io/app: "1795322180123296908"
    kapp.k14s.io/association: v1.0f8e6b6c1c0f7fa1e0a3c4e5d9b2a7f1
  managedFields:
  - apiVersion: v1
    fieldsType: FieldsV1
    fieldsV1:
      f:data:
        .: {}
        f:password: {}
        f:token: {}
      f:metadata:
        f:annotations:
          .: {}
          f:kapp.k14s.io/identity: {}
          f:kapp.k14s.io/original: {}
          f:kapp.k14s.io/original-diff-md5: {}
        f:labels:
          .: {}
          f:kapp.k14s.io/app: {}
          f:kapp.k14s.io/association: {}
      f:type: {}
    manager: kapp
    operation: Update
    time: "2026-11-22T04:36:21Z"
  - apiVersion: v1
    fieldsType: FieldsV1
    fieldsV1:
      f:data:
        f:ca.crt: {}
    manager: cert-manager
    operation: Update
    time: "2026-11-22T04:36:22Z"
  name: creds
  namespace: sec
  resourceVersion: "732"
  uid: 6607728e-9b7d-4bc3-b367-03775f3686e9
type: Opaque
data:
  password: %s
  token: %s
  ca.crt: %s
---
# issue 12: kapp's engine reports an update (the annotation is not desired) and prints its diff
apiVersion: v1
kind: Secret
metadata:
  name: s
  namespace: sec
  labels: {kapp.k14s.io/app: "1", kapp.k14s.io/association: v1.ffdbdb1ef950ae9e50734711b2d8c81b}
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: '{"stringData":{"password":"%s"}}'
data: {k: YQ==}
`, original, b64(livePassword), b64(liveToken), b64(liveCtrl), lastApplied)
	dPath, lPath := filepath.Join(dir, "desired.yaml"), filepath.Join(dir, "live.yaml")
	for p, data := range map[string]string{dPath: desired, lPath: live} {
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	outDir := filepath.Join(dir, "out")
	if err := os.Mkdir(outDir, 0o755); err != nil {
		t.Fatal(err)
	}
	in := []string{"-d", dPath, "-l", lPath, "-n", "sec"}
	runs := [][]string{
		append([]string{"explain", "--color", "always"}, in...),
		append([]string{"explain", "--color", "never"}, in...),
		append([]string{"explain", "-o", "json"}, in...),
		{"explain", "-o", "json", "-l", lPath}, // desired recovered from kapp.k14s.io/original
		{"explain", "-l", lPath},
	}
	for _, f := range [][]string{{"config"}, {"ytt", "--namespace-value", "ns"}, {"secret", "--package-install", "shop"}} {
		for _, out := range []string{"-", filepath.Join(outDir, f[0]+".yml")} {
			runs = append(runs, append(append([]string{"generate", "--force", "--include-unknown", "--output-file", out, "--output"}, f...), in...))
		}
	}
	rules := filepath.Join(dir, "rules.yml")
	if err := os.WriteFile(rules, []byte("apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nrebaseRules: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"text", "json", "github"} {
		runs = append(runs, append([]string{"check", "--rules", rules, "-o", f}, in...))
	}
	var markers []string
	for _, m := range []string{desiredPlain, desiredData, livePassword, liveToken, liveCtrl, lastApplied} {
		markers = append(markers, leaks(m)...)
	}
	check := func(what, text string) {
		t.Helper()
		for _, m := range markers {
			if strings.Contains(text, m) {
				t.Errorf("%s contains %q:\n%s", what, m, text)
			}
		}
	}
	for _, args := range runs {
		r := rebasegen(t, args...)
		if r.code != 0 && r.code != exitPending {
			t.Errorf("%v: exit code %d; stderr:\n%s", args, r.code, r.stderr)
		}
		if args[0] == "explain" || slices.Contains(args, "-") {
			if r.stdout == "" {
				t.Errorf("%v: no output", args)
			}
		}
		check(fmt.Sprintf("stdout of %v", args), r.stdout)
		check(fmt.Sprintf("stderr of %v", args), r.stderr)
	}
	entries, err := os.ReadDir(outDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 3 {
		t.Errorf("%d files written, want 3", len(entries))
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(outDir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		check(e.Name(), string(data))
	}
}

// TestOutputIsAtomic: a run that fails leaves an existing --output file byte-identical and no
// temp file next to it; a run that succeeds replaces it whole.
func TestOutputIsAtomic(t *testing.T) {
	fix := scenario(t, "hpa-replicas")
	dir := t.TempDir()
	// The package's own kapp Config removes spec.selector from every Deployment kapp applies: kapp
	// updates the Deployment on every deploy whatever rebase rules are added, so verification fails.
	broken := filepath.Join(dir, "broken.yaml")
	data, err := os.ReadFile(fix[1])
	if err != nil {
		t.Fatal(err)
	}
	data = append(data, `---
apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- type: remove
  path: [spec, selector]
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}
`...)
	bad := filepath.Join(dir, "bad.yaml")
	for p, d := range map[string][]byte{broken: data, bad: []byte("apiVersion: v1\nkind: ConfigMap\n")} {
		if err := os.WriteFile(p, d, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	outDir := filepath.Join(dir, "out")
	out := filepath.Join(outDir, "rules.yml")
	// an earlier run's output (a file of the user's is refused: TestOutputFileNotGenerated)
	const old = "#! Generated by rebasegen dev from desired.yaml, live.yaml. Do not edit.\n# the rules of an earlier run\n"
	onlyOut := func(name string) {
		t.Helper()
		entries, err := os.ReadDir(outDir)
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) != 1 || entries[0].Name() != "rules.yml" || !entries[0].Type().IsRegular() {
			t.Errorf("%s: %s holds %v, want only the regular file rules.yml", name, outDir, entries)
		}
	}
	for _, c := range []struct {
		name string
		args []string
		code int
	}{
		{"verification fails", []string{"-d", broken, "-l", fix[3], "-n", fix[5]}, exitPending},
		{"bad input", []string{"-d", bad, "-l", fix[3], "-n", fix[5]}, exitError},
		{"bad format", []string{"--format", "yml", "-d", fix[1], "-l", fix[3], "-n", fix[5]}, exitError},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := os.MkdirAll(outDir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(out, []byte(old), 0o644); err != nil {
				t.Fatal(err)
			}
			r := rebasegen(t, append([]string{"generate", "--output-file", out}, c.args...)...)
			if r.code != c.code {
				t.Errorf("exit code %d, want %d; stderr:\n%s", r.code, c.code, r.stderr)
			}
			if got, _ := os.ReadFile(out); string(got) != old {
				t.Errorf("%s was changed to:\n%s", out, got)
			}
			onlyOut(c.name)
		})
	}

	for _, c := range []struct {
		name string
		args []string
		code int
	}{
		{"success", fix, 0},
		{"verification fails, --force", []string{"--force", "-d", broken, "-l", fix[3], "-n", fix[5]}, exitPending},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := os.WriteFile(out, []byte(old), 0o644); err != nil {
				t.Fatal(err)
			}
			r := rebasegen(t, append([]string{"generate", "--output-file", out}, c.args...)...)
			if r.code != c.code || r.stdout != "" {
				t.Errorf("exit code %d, want %d; stdout %q; stderr:\n%s", r.code, c.code, r.stdout, r.stderr)
			}
			toStdout := rebasegen(t, append([]string{"generate"}, c.args...)...)
			got, _ := os.ReadFile(out)
			if string(got) == old || dropHeader(t, string(got)) != dropHeader(t, toStdout.stdout) {
				t.Errorf("%s holds:\n%s\nwant what generate writes to stdout:\n%s", out, got, toStdout.stdout)
			}
			onlyOut(c.name)
		})
	}
}

// --cost reports the rules' price to kapp: a timing, so only its shape is checked, and only when
// asked (the default output stays deterministic).
func TestCostIsReportedOnlyWhenAsked(t *testing.T) {
	fix := scenario(t, "hpa-replicas")
	plain := rebasegen(t, append([]string{"generate"}, fix...)...)
	withCost := rebasegen(t, append([]string{"generate", "--cost"}, fix...)...)
	if plain.code != 0 || withCost.code != 0 {
		t.Fatalf("exit codes %d and %d:\n%s\n%s", plain.code, withCost.code, plain.stderr, withCost.stderr)
	}
	re := regexp.MustCompile(`(?m)^rules overhead: kapp's diff with the rules takes \d+\.\d\dx its time without them \(2 pairs timed both ways, as kapp deploy diffs them without --diff-changes\); it applies (\d+\.\d) rebase mods per pair with them, (\d+\.\d) without; \d+% of its time over the 2 pairs verified is spent in the rules$`)
	m := re.FindStringSubmatch(withCost.stderr)
	if m == nil {
		t.Fatalf("--cost: no overhead line in\n%s", withCost.stderr)
	}
	// the generated rules are rebase mods kapp applies on top of its own: more with them
	with, _ := strconv.ParseFloat(m[1], 64)
	without, _ := strconv.ParseFloat(m[2], 64)
	if with <= without || without == 0 {
		t.Errorf("--cost: %v rebase mods per pair with the rules, %v without: want more with them, some without", with, without)
	}
	if strings.Contains(plain.stderr, "overhead") || plain.stdout != withCost.stdout {
		t.Errorf("without --cost: no timing, and the same rules either way:\n%s", plain.stderr)
	}
}

// packageDir is dir/config holding the desired objects of fix as app.yaml (its path: desired).
func packageDir(t *testing.T, dir string, fix []string) (pkg, desired string) {
	t.Helper()
	pkg = filepath.Join(dir, "config")
	if err := os.Mkdir(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(fix[1])
	if err != nil {
		t.Fatal(err)
	}
	desired = filepath.Join(pkg, "app.yaml")
	if err := os.WriteFile(desired, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return pkg, desired
}

// TestOutputFileHandling (issue 12 items 3 and 8): generate never reads its own output as the
// package's rules, refuses an output that is an input or read-only, keeps an existing file's
// mode (else 0644), and names the user's path in errors, never its temp file.
func TestOutputFileHandling(t *testing.T) {
	fix, dir := scenario(t, "hpa-replicas"), t.TempDir()
	pkg, desired := packageDir(t, dir, fix)
	out := filepath.Join(pkg, "rebase-rules.yml")
	args := []string{"generate", "-d", pkg, "-l", fix[3], "-n", fix[5], "--output-file", out}
	var first string
	for run := 1; run <= 3; run++ { // flip-flopped 4, 1, 4 rules: the 2nd run read the 1st's rules
		r := rebasegen(t, args...)
		got, err := os.ReadFile(out)
		if r.code != 0 || err != nil {
			t.Fatalf("run %d: exit %d (%v); stderr:\n%s", run, r.code, err, r.stderr)
		}
		if run == 1 {
			first = string(got)
		} else if string(got) != first {
			t.Errorf("run %d wrote other rules than run 1:\n%s\nrun 1:\n%s", run, got, first)
		}
	}
	if st, err := os.Stat(out); err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("new file mode %v (%v), want 0644", st.Mode().Perm(), err)
	}
	if err := os.Chmod(out, 0o640); err != nil {
		t.Fatal(err)
	}
	if r := rebasegen(t, args...); r.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	if st, err := os.Stat(out); err != nil || st.Mode().Perm() != 0o640 {
		t.Errorf("existing file mode %v (%v), want 0640 kept", st.Mode().Perm(), err)
	}

	handWritten := filepath.Join(pkg, "kapp-config.yml")
	if err := os.WriteFile(handWritten, []byte("apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nrebaseRules: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	readOnly := filepath.Join(dir, "ro.yml")
	if err := os.WriteFile(readOnly, []byte("keep\n"), 0o444); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, out, want string
		in              []string
	}{
		{"output is the desired file", desired, "it is also an input", []string{"-d", desired}},
		{"output is the live file", fix[3], "it is also an input", []string{"-d", desired}},
		{"output is a hand-written file in the desired directory", handWritten, "that rebasegen did not generate", []string{"-d", pkg}},
		{"read-only output", readOnly, "the file is read-only", []string{"-d", desired}},
		{"output in a missing directory", filepath.Join(dir, "missing", "rules.yml"), "no such file or directory", []string{"-d", desired}},
		{"output is a directory", dir, "is a directory", []string{"-d", desired}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before, _ := os.ReadFile(tc.out)
			r := rebasegen(t, append(append([]string{"generate", "--output-file", tc.out}, tc.in...), "-l", fix[3], "-n", fix[5])...)
			checkRejected(t, "generate", r, "--output-file "+tc.out+": ", tc.want)
			if strings.Count(r.stderr, "\n") != 1 { // refused before the analysis: no summary, no note
				t.Errorf("not one line on stderr:\n%s", r.stderr)
			}
			if strings.Contains(r.stderr, ".tmp-") {
				t.Errorf("the error names the temp file:\n%s", r.stderr)
			}
			if after, _ := os.ReadFile(tc.out); string(after) != string(before) {
				t.Errorf("%s changed", tc.out)
			}
		})
	}
}

// The summary counts the rules as the file holds them: every entry of rebaseRules, the remove
// and the copy back following the copy for kapp's empty annotations map included (issue 24: "11 rules" for 15).
func TestRuleCountMatchesTheFile(t *testing.T) {
	dir := filepath.Join("..", "..", "fixtures", "package-app")
	r := rebasegen(t, "generate", "-d", filepath.Join(dir, "desired.yaml"), "-l", filepath.Join(dir, "live.yaml"), "-n", "package-app")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var cfg struct {
		RebaseRules []map[string]any `json:"rebaseRules"`
	}
	if err := yaml.Unmarshal([]byte(r.stdout), &cfg); err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^(\d+) rules?;`).FindStringSubmatch(r.stderr)
	if m == nil {
		t.Fatalf("no rule count on stderr:\n%s", r.stderr)
	}
	if n, _ := strconv.Atoi(m[1]); n != len(cfg.RebaseRules) {
		t.Errorf("the summary counts %d rules, the file holds %d", n, len(cfg.RebaseRules))
	}
}

// TestFormatFlagWithAnotherFormatIsAUsageError (newcomer13 N13-8): --namespace-value (the ytt
// format's) and --package-install (the secret format's) given with another format did nothing,
// exit 0, and the header's Regenerate line recorded them as if the file followed them. A usage
// error naming the flag and the format it needs, before any work: nothing written.
func TestFormatFlagWithAnotherFormatIsAUsageError(t *testing.T) {
	fix := scenario(t, "hpa-replicas") // -d desired -l live -n ns
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--namespace-value", "ns"}, "rebasegen: --namespace-value ns needs --output ytt: --output config writes each namespace as it is, following no data value\n"},
		{[]string{"-o", "secret", "--package-install", "shop", "--namespace-value", "ns"}, "rebasegen: --namespace-value ns needs --output ytt: --output secret writes each namespace as it is, following no data value\n"},
		{[]string{"--package-install", "hpa-replicas/web"}, "rebasegen: --package-install hpa-replicas/web needs --output secret: --output config writes no Secret for a PackageInstall\n"},
		{[]string{"-o", "ytt", "--package-install", "web"}, "rebasegen: --package-install web needs --output secret: --output ytt writes no Secret for a PackageInstall\n"},
	} {
		out := filepath.Join(t.TempDir(), "rules.yml")
		r := rebasegen(t, append(append([]string{"generate", "-q", "--output-file", out}, tc.args...), fix...)...)
		if _, err := os.Stat(out); r.code != exitError || r.stderr != tc.want || r.stdout != "" || err == nil {
			t.Errorf("%v: exit %d, file written: %v\nstdout:\n%s\nstderr:\n%s\nwant:\n%s", tc.args, r.code, err == nil, r.stdout, r.stderr, tc.want)
		}
	}
}
