package main

import (
	"bufio"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/generator/verdict"
	"github.com/rebasegen/rebasegen/generator/yttrender"
	"github.com/rebasegen/rebasegen/internal/ytttest"
)

// TestHostileInputs: bad input of every kind is an error (exit 1) that names the input and, for
// generate --output-file FILE, writes nothing; no input hangs the tool or exhausts its memory.
func TestHostileInputs(t *testing.T) {
	fixture := scenario(t, "hpa-replicas") // -d desired -l live -n ns
	desired, live, ns := fixture[1], fixture[3], fixture[5]

	type input struct {
		args []string // input flags
		name string   // the input the error must name
		want string   // and what it must say
	}
	const cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: %s}\n"
	configMap := func(name string) string { return strings.Replace(cm, "%s", name, 1) }
	file := func(t *testing.T, name, data string) string {
		p := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	asDesired := func(p, want string) input { return input{[]string{"-d", p, "-l", live, "-n", ns}, p, want} }
	asLive := func(p, want string) input { return input{[]string{"-d", desired, "-l", p, "-n", ns}, p, want} }

	for _, tc := range []struct {
		name  string
		input func(t *testing.T) input
	}{
		{"invalid YAML", func(t *testing.T) input {
			return asDesired(file(t, "bad.yaml", configMap("a")+"---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b\n"),
				"document 2 (line 4): invalid YAML")
		}},
		{"alias bomb", func(t *testing.T) input {
			bomb := configMap("bomb") + "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
			prev := "a"
			for _, n := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
				bomb += n + ": &" + n + " [*" + prev + strings.Repeat(", *"+prev, 8) + "]\n"
				prev = n
			}
			return asLive(file(t, "bomb.yaml", bomb+"data: {x: *"+prev+"}\n"), "aliases expand the document beyond the size limit")
		}},
		{"alias fan-out", func(t *testing.T) input {
			return asDesired(file(t, "fan.yaml", fanOut(configMap("fan"))), "aliases expand the document beyond the size limit")
		}},
		{"duplicate key", func(t *testing.T) input {
			return asDesired(file(t, "dupkey.yaml", configMap("a")+"data: {}\nkind: Secret\n"),
				`document 1 (line 1): field kind: duplicate key "kind" at line 5, first defined at line 2`)
		}},
		{"YAML error at its line", func(t *testing.T) input {
			return asLive(file(t, "line.yaml", configMap("a")+"---\n"+configMap("b")+"data:\n  a: b\n  c: [d, e\n  f: g\n"),
				"document 2 (line 4): invalid YAML: yaml: line 10: did not find expected ',' or ']'")
		}},
		{"flow document on the separator line", func(t *testing.T) input {
			return asDesired(file(t, "flow.yaml", configMap("a")+"--- {apiVersion: v1, kind: ConfigMap, metadata: {name: b}}\n"),
				"document 2 (line 4): invalid document separator")
		}},
		// silent misreads (issue 12 item 4): each was read as "nothing desired", switching to
		// desired objects recovered from kapp.k14s.io/original
		{"empty desired file", func(t *testing.T) input {
			return asDesired(file(t, "empty.yaml", ""), "--desired "+"%s: no Kubernetes object in it")
		}},
		{"comment-only desired file", func(t *testing.T) input {
			return asDesired(file(t, "comments.yaml", "# nothing\n# here\n"), "no Kubernetes object in it")
		}},
		{"null desired file", func(t *testing.T) input {
			return asDesired(file(t, "null.yaml", "null\n"), "no Kubernetes object in it")
		}},
		{"separators-only desired file", func(t *testing.T) input {
			return asDesired(file(t, "seps.yaml", "---\n---\n"), "no Kubernetes object in it")
		}},
		{"empty live file", func(t *testing.T) input {
			return asLive(file(t, "empty-live.yaml", "\n"), "--live "+"%s: no Kubernetes object in it")
		}},
		{"empty stdin as desired", func(t *testing.T) input {
			return input{[]string{"-d", "-", "-l", live, "-n", ns}, "--desired - (stdin)", "empty input"}
		}},
		{"stdin as desired and live", func(t *testing.T) input {
			return input{[]string{"-d", "-", "-l", "-", "-n", ns}, "--desired -, --live -", "- (stdin) can be read only once"}
		}},
		{"package rendering nothing", func(t *testing.T) input {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "values.yml"), []byte("#@data/values\n---\nx: 1\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			return input{[]string{"--package", dir, "-l", live, "-n", ns}, dir, "rendering it with ytt gives no Kubernetes object"}
		}},
		{"package CR with only inline.pathsFrom", func(t *testing.T) input {
			p := file(t, "package.yaml", "apiVersion: data.packaging.carvel.dev/v1alpha1\nkind: Package\nmetadata: {name: p}\n"+
				"spec:\n  template:\n    spec:\n      fetch:\n      - inline:\n          pathsFrom:\n          - secretRef: {name: config}\n"+
				"      template:\n      - ytt: {}\n")
			return input{[]string{"--package-cr", p, "-l", live, "-n", ns}, p, "inline.pathsFrom reads Secrets and ConfigMaps from the cluster"}
		}},
		{"100 MB single document", func(t *testing.T) input {
			p := filepath.Join(t.TempDir(), "big.yaml")
			f, err := os.Create(p)
			if err != nil {
				t.Fatal(err)
			}
			w := bufio.NewWriter(f)
			w.WriteString(configMap("big") + "data:\n  x: ")
			chunk := strings.Repeat("a", 1<<20)
			for range 100 {
				w.WriteString(chunk)
			}
			w.WriteString("\n")
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			return asDesired(p, "larger than 64 MiB")
		}},
		{"object over 4 MiB", func(t *testing.T) input {
			// no cluster holds it; a ConfigMap of 1,000,000 keys (13 MB) took 93 s and 2 GB
			big := configMap("big") + "data:\n  x: " + strings.Repeat("a", 5<<20) + "\n"
			return asDesired(file(t, "big.yaml", configMap("a")+"---\n"+big), "document 2 (line 4): the object is larger than 4 MiB as JSON")
		}},
		{"not a Kubernetes object", func(t *testing.T) input {
			return asDesired(file(t, "notk8s.yaml", "hello: world\nitems: {a: 1}\n"), "field apiVersion: missing: not a Kubernetes object")
		}},
		{"items not objects", func(t *testing.T) input {
			// kapp reads any document whose items is a list as its items, whatever its kind
			return asDesired(file(t, "notk8s.yaml", "hello: world\nitems: [1, 2]\n"), "item 1: not a Kubernetes object: the item is not a mapping")
		}},
		{"duplicate resources", func(t *testing.T) input {
			return asDesired(file(t, "dup.yaml", configMap("same")+"---\n"+configMap("same")), "duplicate desired resource core/ConfigMap")
		}},
		{"binary data", func(t *testing.T) input {
			b := make([]byte, 64<<10)
			rand.New(rand.NewSource(1)).Read(b)
			return asLive(file(t, "blob.yaml", string(b)), "not UTF-8 text")
		}},
		{"non-UTF-8 text", func(t *testing.T) input {
			return asDesired(file(t, "latin1.yaml", configMap("a")+"---\n"+configMap("caf\xe9")), "document 2 (line 4): not UTF-8 text")
		}},
		{"10000 levels of nesting", func(t *testing.T) input {
			deep := configMap("deep") + "data:\n  x: " + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + "\n"
			return asDesired(file(t, "deep.yaml", deep), "exceeded max depth")
		}},
		{"5000 levels of nesting", func(t *testing.T) input {
			deep := configMap("deep") + "data:\n  x: " + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + "\n"
			return asLive(file(t, "deep5k.yaml", deep), "document 1 (line 1): nested deeper than 512 levels")
		}},
		{"10000 levels of nesting in JSON", func(t *testing.T) input {
			deep := `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "deep"}, "data": ` +
				strings.Repeat(`{"a": `, 10000) + "1" + strings.Repeat("}", 10000) + "}"
			return asLive(file(t, "deep.json.yaml", deep), "exceeded max depth")
		}},
		{"malformed managedFields fieldsV1", func(t *testing.T) input {
			d := "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: " + ns + "}\nspec: {replicas: 1}\n"
			l := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: " + ns + "\n  managedFields:\n" +
				"  - {manager: kapp, operation: Update, apiVersion: apps/v1, fieldsType: FieldsV1, fieldsV1: {f:spec: not-a-set}}\n" +
				"spec: {replicas: 2}\n"
			dp := file(t, "web.yaml", d)
			lp := file(t, "web-live.yaml", l)
			return input{[]string{"-d", dp, "-l", lp}, lp, "field metadata.managedFields[0].fieldsV1: malformed"}
		}},
		{"ruleset with unknown keys", func(t *testing.T) input {
			p := file(t, "rules.yaml", "calculated: []\nappliers: []\nnotAKey: {x: 1}\n")
			return input{append([]string{"--ruleset", p}, fixture...), p, "unknown field"}
		}},
		{"unreadable file", func(t *testing.T) input {
			if os.Geteuid() == 0 {
				t.Skip("running as root: mode 000 does not stop root from reading the file")
			}
			p := file(t, "locked.yaml", configMap("a"))
			if err := os.Chmod(p, 0); err != nil {
				t.Fatal(err)
			}
			return asDesired(p, "--desired %s: permission denied")
		}},
		{"unreadable file in a directory", func(t *testing.T) input {
			if os.Geteuid() == 0 {
				t.Skip("running as root: mode 000 does not stop root from reading the file")
			}
			p := file(t, "locked.yaml", configMap("a"))
			if err := os.Chmod(p, 0); err != nil {
				t.Fatal(err)
			}
			dir := filepath.Dir(p)
			return asDesired(dir, "--desired "+dir+": reading "+p+": open "+p+": permission denied")
		}},
		{"directory with a symlink loop", func(t *testing.T) input {
			dir := t.TempDir()
			for link, target := range map[string]string{"loop.yaml": ".", "self.yaml": "self.yaml", "up": ".."} {
				if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
					t.Fatal(err)
				}
			}
			return asDesired(dir, "no *.yaml, *.yml or *.json file")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.input(t)
			in.want = strings.ReplaceAll(in.want, "%s", in.name)
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			r := rebasegen(t, append([]string{"explain"}, in.args...)...)
			checkRejected(t, "explain", r, in.name, in.want)

			out := filepath.Join(t.TempDir(), "rules.yaml")
			r = rebasegen(t, append([]string{"generate", "--output-file", out}, in.args...)...)
			checkRejected(t, "generate", r, in.name, in.want)
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("generate --output-file wrote %s although the input is bad (%v)", out, err)
			}
			if left, _ := os.ReadDir(filepath.Dir(out)); len(left) > 0 {
				t.Errorf("generate left %d files next to the output, e.g. %s", len(left), left[0].Name())
			}
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<30 {
				t.Errorf("two runs allocated %d MiB", grew>>20)
			}
		})
	}
}

// TestUnreadableInputAsNobody runs TestHostileInputs' "unreadable file" cases as user nobody
// when the tests run as root, whom mode 000 does not stop (issue 12 item 5f: the error named
// the file but not the flag it came from).
func TestUnreadableInputAsNobody(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("not root: TestHostileInputs/unreadable_file runs as this user")
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("no setpriv to run the test as nobody")
	}
	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} { // t.TempDir's directories are 0700
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "rebasegen.test")
	data, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", bin,
		"-test.run", "^TestHostileInputs$/^unreadable_file", "-test.count=1", "-test.v").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestHostileInputs/unreadable_file ") ||
		!strings.Contains(string(out), "--- PASS: TestHostileInputs/unreadable_file_in_a_directory ") {
		t.Errorf("as nobody: %v\n%s", err, out)
	}
}

// fanOut is doc with one 1 MB scalar aliased 1,000 times: 1 GB after alias expansion.
func fanOut(doc string) string {
	var b strings.Builder
	b.WriteString(doc + "s: &s " + strings.Repeat("y", 1<<20) + "\nfan:\n")
	for i := range 1000 {
		fmt.Fprintf(&b, "  k%d: *s\n", i)
	}
	return b.String()
}

// TestAliasFanOutEveryReader: every YAML reader refuses a document whose aliases expand beyond
// the size limit, quickly and naming the file (issue 12: each of these took 3.2 GB).
func TestAliasFanOutEveryReader(t *testing.T) {
	fix := scenario(t, "hpa-replicas")
	dir := t.TempDir()
	fan := func(name, doc string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(fanOut(doc)), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	config := fan("config.yaml", "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\n")
	ruleset := fan("ruleset.yaml", "calculated: []\n")
	cr := fan("package.yaml", "apiVersion: data.packaging.carvel.dev/v1alpha1\nkind: Package\nmetadata: {name: p}\n")
	for _, args := range [][]string{
		append([]string{"explain", "--ruleset", ruleset}, fix...),
		{"explain", "--package-cr", cr, "-l", fix[3], "-n", fix[5]},
		append([]string{"check", "--rules", config}, fix...),
		{"lint", "--rules", config},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		r := rebasegen(t, args...)
		runtime.ReadMemStats(&after)
		name := args[slices.IndexFunc(args, func(a string) bool { return strings.HasPrefix(a, dir) })]
		checkRejected(t, strings.Join(args[:2], " "), r, name, "aliases expand the document beyond the size limit")
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 512<<20 {
			t.Errorf("%v allocated %d MiB", args[:2], grew>>20)
		}
	}
}

func checkRejected(t *testing.T, cmd string, r result, name, want string) {
	t.Helper()
	if r.code != exitError {
		t.Errorf("%s: exit code %d, want %d; stderr:\n%s", cmd, r.code, exitError, r.stderr)
	}
	if !strings.Contains(r.stderr, name) || !strings.Contains(r.stderr, want) {
		t.Errorf("%s: the error must name %s and say %q; stderr:\n%.2000s", cmd, name, want, r.stderr)
	}
	if r.stdout != "" {
		t.Errorf("%s: wrote to stdout:\n%.500s", cmd, r.stdout)
	}
}

// TestSmallOnes (issue 12 item 10): an unknown command is a usage error (exit 1, not 3, which
// says ghost diffs remain); a bad --output is refused before the analysis (here the input is
// bad too, and the flag is what the error names); --fail-on-drift makes drift an error in every
// format; a value of the wrong type names its field.
func TestSmallOnes(t *testing.T) {
	if r := rebasegen(t, "bogus"); r.code != exitError || !strings.Contains(r.stderr, `unknown command "bogus"`) {
		t.Errorf("unknown command: exit %d; stderr:\n%s", r.code, r.stderr)
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	secret := filepath.Join(dir, "secret.yaml")
	rules := filepath.Join(dir, "rules.yml")
	for p, data := range map[string]string{
		bad:    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b\n",
		secret: "apiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: ns}\ndata: hello\n",
		rules:  "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nrebaseRules: []\n",
	} {
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, cmd := range [][]string{{"explain"}, {"check", "--rules", rules}, {"generate"}} {
		r := rebasegen(t, append(cmd, "-o", "bogus", "-d", bad, "-l", bad)...)
		checkRejected(t, cmd[0], r, "--output", "bogus")
		if strings.Contains(r.stderr, "invalid YAML") {
			t.Errorf("%s: the input was read before --output was checked:\n%s", cmd[0], r.stderr)
		}
	}
	// the same objects as live, from another file: one file given to both flags is refused first
	liveSecret := filepath.Join(dir, "live-secret.yaml")
	if err := os.WriteFile(liveSecret, []byte("apiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: ns}\ndata: hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := rebasegen(t, "explain", "-d", secret, "-l", liveSecret, "-n", "ns")
	checkRejected(t, "explain", r, secret, "field data (line 4): expected map[string][]uint8, got string")

	fix := scenario(t, "human-drift")
	for format, want := range map[string]string{"text": "\nerror: drift: ", "github": "\n::error file=" + fix[1] + ",line=6::drift: ", "json": `"severity": "error"`} {
		r := rebasegen(t, append([]string{"check", "--fail-on-drift", "--rules", rules, "-o", format}, fix...)...)
		if r.code != exitPending || !strings.Contains(r.stdout, want) || strings.Contains(r.stdout, "warning: drift") || strings.Contains(r.stdout, "::warning") {
			t.Errorf("--fail-on-drift -o %s: exit %d, want %d and drift labelled as an error (%q):\n%s", format, r.code, exitPending, want, r.stdout)
		}
	}
}

// TestGitHubOutputEscapes (issue 12 item 6): names from the inputs cannot inject workflow
// commands into check --output github: every line written is one command, and no resource name
// starts a line of its own.
func TestGitHubOutputEscapes(t *testing.T) {
	name := "evil\n::error file=README.md,line=1::INJECTED\r50%"
	res := &generator.Checked{Verdict: &verdict.Verdict{
		Residual: []verdict.Residual{{Resource: pair.Identity{Group: "rbac.authorization.k8s.io", Kind: "Role", Namespace: "ns", Name: name}}},
		Drift:    []verdict.Residual{{Resource: pair.Identity{Kind: "ConfigMap", Namespace: "ns", Name: name}}},
		Stale:    []verdict.Stale{{File: "a,b:c.yml", Line: 2}},
	}}
	var out strings.Builder
	if err := writeCheck(&out, "github", res, []string{"rules,x:y.yml"}, res.Findings(verdict.Gate{})); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 4 {
		t.Errorf("%d lines, want 3 commands and the summary:\n%s", len(lines), out.String())
	}
	for _, l := range lines {
		// the drift's desired document is not known here: no file
		if !strings.HasPrefix(l, "::error file=rules%2Cx%3Ay.yml,line=1::") && !strings.HasPrefix(l, "::warning::drift: ") &&
			!strings.HasPrefix(l, "::error file=a%2Cb%3Ac.yml,line=2::") && !strings.HasPrefix(l, "::notice::check: ") || strings.Contains(l, "\r") {
			t.Errorf("line is not one escaped command: %q", l)
		}
	}
	if !strings.Contains(out.String(), `evil\n::error file=README.md,line=1::INJECTED\r50%25`) {
		t.Errorf("name not escaped (line breaks shown, %% as GitHub requires):\n%s", out.String())
	}
}

// TestREADMEStatesLimits: the README's "bad input" paragraph states the input limits the code
// enforces (issue 12).
func TestREADMEStatesLimits(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := strings.Join(strings.Fields(string(data)), " ")
	for _, want := range []string{
		fmt.Sprintf("Limits: %d MiB per file, before and after alias expansion", load.MaxFileSize>>20),
		fmt.Sprintf("%d MiB for all inputs together", load.MaxTotalSize>>20),
		fmt.Sprintf("%d MiB per object as JSON", load.MaxObjectSize>>20),
		fmt.Sprintf("%d levels of nesting", load.MaxDepth),
		fmt.Sprintf("a package renders with ytt within %v minute, %d GiB of memory and %d MiB of output",
			yttrender.RenderTimeout.Minutes(), yttrender.RenderMemory>>30, load.MaxFileSize>>20),
		fmt.Sprintf("a ytt rebase rule (`ytt.overlayContractV1`) of the rules in force runs the same way within the same %v minute and %d GiB, once",
			yttrender.RenderTimeout.Minutes(), yttrender.RenderMemory>>30),
		"and again on each changed manifest of check's mutation check whose resource it may match",
		fmt.Sprintf("every evaluation kapp's engine then makes of it (on each resource it matches, under both bases) runs within the same %v minute", yttrender.RenderTimeout.Minutes()),
	} {
		if !strings.Contains(readme, want) {
			t.Errorf("README.md does not say %q", want)
		}
	}
}

// TestYTTRebaseRuleBudget (probe23 finding 8): a ytt rebase rule runs within the budget of a
// package render, once, before kapp's engine runs it for every base and mutation: a rule building
// a 4 GiB string took the machine's memory (and one looping range(2000000000) ran for hours).
// The error names the rule's file, line, document and key.
func TestYTTRebaseRuleBudget(t *testing.T) {
	if runtime.GOOS != "linux" || raceDetector {
		t.Skip("the memory budget is the kernel's limit on a render process of its own (Linux, not under -race)")
	}
	fixture := scenario(t, "hpa-replicas")
	rules := filepath.Join(t.TempDir(), "big.yml")
	const config = `apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}
  ytt:
    overlayContractV1:
      overlay.yml: |
        #@ load("@ytt:overlay", "overlay")
        #@ def big():
        #@   s = "x" * 1024
        #@   for i in range(22):
        #@     s = s + s
        #@   end
        #@   return len(s)
        #@ end
        #@overlay/match by=overlay.all
        ---
        metadata:
          #@overlay/match missing_ok=True
          labels:
            #@overlay/match missing_ok=True
            big: #@ str(big())
`
	if err := os.WriteFile(rules, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	r := rebasegen(t, append([]string{"check", "--rules", rules}, fixture...)...)
	want := "rendering ytt rebase rule " + rules + ":4, document 1, rebaseRules[0] on apps/Deployment hpa-replicas/web with ytt: it needs more than 2048 MiB of memory"
	if r.code != exitError || !strings.Contains(r.stderr, want) || r.stdout != "" {
		t.Errorf("exit %d, want %d and %q; stderr:\n%s\nstdout:\n%s", r.code, exitError, want, r.stderr, r.stdout)
	}
}

// TestYTTRebaseRuleBudgetOnMutations (probe4 finding 2): a ytt rebase rule that allocates without
// end only when the manifest's image differs from the live one passes the budgeted run on the
// unchanged pair; check's mutation check changes the image, and kapp's engine ran the rule there
// without a bound (a loop behind the same condition hung check for ever). Every evaluation the
// mutation check makes runs within the budget, and the error names the rule and the change.
func TestYTTRebaseRuleBudgetOnMutations(t *testing.T) {
	if runtime.GOOS != "linux" || raceDetector {
		t.Skip("the memory budget is the kernel's limit on a render process of its own (Linux, not under -race)")
	}
	fixture := scenario(t, "hpa-replicas")
	rules := filepath.Join(t.TempDir(), "cond.yml")
	config := ytttest.Config(ytttest.WebImageRule(`if n != e:
  s = "x" * 1024
  for i in range(22):
    s = s + s
  end
  n = n + s[0:0]
end
return n`))
	if err := os.WriteFile(rules, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	r := rebasegen(t, append([]string{"check", "--rules", rules}, fixture...)...)
	want := "rendering ytt rebase rule " + rules + ":4, document 1, rebaseRules[0] on apps/Deployment hpa-replicas/web with spec.template.spec.containers[name=web].image changed (check's mutation check) with ytt: it needs more than 2048 MiB of memory"
	if r.code != exitError || !strings.Contains(r.stderr, want) || r.stdout != "" {
		t.Errorf("exit %d, want %d and %q; stderr:\n%s\nstdout:\n%s", r.code, exitError, want, r.stderr, r.stdout)
	}
}

// TestKappRefusedRulesNamed (probe23 findings 9, 10, 11): a Config kapp refuses, a rule kapp fails
// or panics on, a rules Secret rendering something else than Configs: the error names the file,
// the document and the rule (or the Secret's key), not "config 0" or kapp's message alone.
func TestKappRefusedRulesNamed(t *testing.T) {
	fixture := scenario(t, "hpa-replicas")
	dir := t.TempDir()
	const head = "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\n"
	rule := func(path string) string {
		return head + "rebaseRules:\n- {type: copy, sources: [existing], path: " + path + ", resourceMatchers: [{allMatcher: {}}]}\n"
	}
	for _, tc := range []struct{ name, data, want string }{
		{"version.yml", head + "minimumRequiredVersion: 0.99.0\n", ": document 1 (line 1): kapp refuses the Config: Parsing resource 'config/ (kapp.k14s.io/v1alpha1) cluster' as kapp config: Validating config: kapp version"},
		{"index.yml", rule("[spec, template, spec, containers, {index: -1}, image]"), ": document 1 (line 1), rebaseRules[0]: kapp rebase rules failed: runtime error: index out of range [-1]"},
		{"regex.yml", "---\n" + head + "---\n" + rule(`[spec, {regex: "("}]`), ": document 2 (line 4), rebaseRules[0]: Applying rebase rule"},
		{"secret.yml", "apiVersion: v1\nkind: Secret\nmetadata: {name: rules}\nstringData:\n  rebase-rules.yml: |\n    apiVersion: kapp.k14s.io/v1alpha1\n    kind: Config\n  db.yml: |\n    apiVersion: v1\n    kind: Secret\n    metadata: {name: db}\n",
			": document 1 (line 1): field db.yml: its files render v1 Secret (db, ytt output document 1), which is no kapp Config"},
	} {
		p := filepath.Join(dir, tc.name)
		if err := os.WriteFile(p, []byte(tc.data), 0o644); err != nil {
			t.Fatal(err)
		}
		r := rebasegen(t, append([]string{"check", "--rules", p}, fixture...)...)
		if r.code != exitError || !strings.Contains(r.stderr, p+tc.want) || r.stdout != "" {
			t.Errorf("%s: exit %d, want %d and %q; stderr:\n%s", tc.name, r.code, exitError, p+tc.want, r.stderr)
		}
	}
}

// TestManifestsAsLive (probe23 finding 14): manifests given as --live (namespaced objects
// without a namespace, uid, resourceVersion or managedFields) are an input error naming --live,
// the file and the document; they were compared, and the hint read "the live objects hold it in
// namespace : did you mean -n ?".
func TestManifestsAsLive(t *testing.T) {
	desired := scenario(t, "hpa-replicas")[1]
	r := rebasegen(t, "check", "-d", desired, "-l", desired, "--rules", desired)
	want := "--live " + desired + ": document 1 (line 1): Deployment web has no metadata.namespace, uid, resourceVersion or managedFields"
	if r.code != exitError || !strings.Contains(r.stderr, want) || r.stdout != "" || strings.Contains(r.stderr, "-n ?") {
		t.Errorf("exit %d, want %d and %q; stderr:\n%s\nstdout:\n%s", r.code, exitError, want, r.stderr, r.stdout)
	}
}

// TestInputErrorAnnotated (newcomer15 N15-6): an input error under -o github (--report github)
// printed no annotation: CI showed a red job with the reason in its log only. An input error
// naming a file and line is an ::error annotation on the line of the field it names (the line
// holding the value, read off the text); without github, stdout stays empty.
func TestInputErrorAnnotated(t *testing.T) {
	fixture := filepath.Join("..", "..", "fixtures", "hpa-replicas")
	manifest := strings.Replace(readFile(t, filepath.Join(fixture, "desired.yaml")), "cpu: 100m\n", "cpu: 100x\n", 1)
	dir := t.TempDir()
	desired, rules := filepath.Join(dir, "desired.yaml"), filepath.Join(dir, "rules.yml")
	write(t, desired, manifest)
	write(t, rules, "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nrebaseRules: []\n")
	line := 1 + strings.Count(manifest[:strings.Index(manifest, "cpu: 100x")], "\n")
	inputs := []string{"-d", desired, "-l", filepath.Join(fixture, "live.yaml"), "-n", "hpa-replicas"}
	for _, args := range [][]string{
		append([]string{"check", "-r", rules, "-o", "github"}, inputs...),
		append([]string{"generate", "--report", "github", "--output-file", filepath.Join(dir, "out.yml")}, inputs...),
	} {
		r := rebasegen(t, args...)
		want := fmt.Sprintf("::error file=%s,line=%d::rebasegen: %s: document 1 (line 1): field spec.template.spec.containers[0].resources.requests.cpu (line %d): \"100x\": ", desired, line, desired, line)
		if r.code != exitError || !strings.HasPrefix(r.stdout, want) || strings.Count(r.stdout, "\n") != 1 {
			t.Errorf("%s: exit %d, stdout:\n%s\nwant one annotation starting %q", args[0], r.code, r.stdout, want)
		}
	}
	if r := rebasegen(t, append([]string{"check", "-r", rules}, inputs...)...); r.code != exitError || r.stdout != "" {
		t.Errorf("check -o text: exit %d, stdout:\n%s", r.code, r.stdout)
	}
}

// A package's template writing a value the decoder refuses (cpu: 100x) or of the wrong type
// (containerPort: http) is an input error at the template's line, in its text and its -o github
// annotation (issue 24: it named ytt's output document and the template's document line, no
// field line, and -o github printed nothing, ytt's output being no file). The line is the one
// holding the value, read off the template's text.
func TestPackageInputErrorAtTheTemplatesLine(t *testing.T) {
	web := filepath.Join("..", "..", "fixtures", "packages", "hpa-web")
	app := readFile(t, filepath.Join(web, "config", "app.yml"))
	rules := filepath.Join(t.TempDir(), "rules.yml")
	write(t, rules, "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nrebaseRules: []\n")
	for _, c := range []struct{ from, to, field, says string }{
		{"cpu: 100m\n", "cpu: 100x\n", "spec.template.spec.containers[0].resources.requests.cpu", `"100x": `},
		{"containerPort: 80\n", "containerPort: http\n", "spec.template.spec.containers.0.ports.0.containerPort", "expected int32, got string"},
	} {
		dir := t.TempDir()
		template := filepath.Join(dir, "config", "app.yml")
		changed := strings.Replace(app, c.from, c.to, 1)
		line := 1 + strings.Count(changed[:strings.Index(changed, c.to)], "\n")
		if err := os.Mkdir(filepath.Dir(template), 0o755); err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(dir, "config", "schema.yml"), readFile(t, filepath.Join(web, "config", "schema.yml")))
		write(t, template, changed)
		inputs := []string{"--package", filepath.Join(dir, "config"), "--values", filepath.Join(web, "values.yml"), "-l", filepath.Join("..", "..", "fixtures", "hpa-replicas", "live.yaml"), "-n", "hpa-replicas"}
		for _, args := range [][]string{
			append([]string{"check", "-r", rules, "-o", "github"}, inputs...),
			append([]string{"generate", "--report", "github", "--output-file", filepath.Join(dir, "out.yml")}, inputs...),
		} {
			r := rebasegen(t, args...)
			text := fmt.Sprintf("field %s (%s line %d): %s", c.field, template, line, c.says)
			annotation := fmt.Sprintf("::error file=%s,line=%d::rebasegen: ", template, line)
			if r.code != exitError || !strings.HasPrefix(r.stdout, annotation) || !strings.Contains(r.stdout, text) || !strings.Contains(r.stderr, text) {
				t.Errorf("%s, %s: exit %d, stdout:\n%s\nstderr:\n%s\nwant an annotation starting %q and %q in both", args[0], c.to, r.code, r.stdout, r.stderr, annotation, text)
			}
		}
	}
}
