package e2e

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/rebasegen/rebasegen/internal/testcluster"
)

// A package consumer's path, as in the ghost-diff blog post: deploy a package rendered from a ytt
// directory, let the real HPA act, see the ghost diff, capture, generate a Secret, render the
// package again with the Secret's file as kapp-controller would, and see kapp go quiet while a
// real change still shows. Then the CI script passes and fails where it should.
func TestE2EPackageConsumer(t *testing.T) {
	c := testcluster.Shared(t, testcluster.Options{ControllerManager: true})
	const app, ns = "pkg-demo", "pkg-demo"
	pkg, _ := filepath.Abs("../../fixtures/packages/pkg-demo")
	dir := t.TempDir()
	bin := buildRebasegen(t, dir)

	core, err := kubernetes.NewForConfig(c.Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := core.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	render := func(name, values string, extra ...string) string {
		args := []string{"-f", filepath.Join(pkg, "config"), "--data-values-file", values}
		for _, e := range extra {
			args = append(args, "-f", e)
		}
		out, err := exec.Command(c.YttPath(), args...).Output()
		if err != nil {
			t.Fatalf("ytt %v: %v", args, err)
		}
		return writeFile(t, filepath.Join(dir, name), string(out))
	}
	diffRun := func(file string) int {
		out, err := c.KappCmd("deploy", "-a", app, "-n", ns, "-f", file, "--diff-run", "--diff-exit-status", "--diff-changes", "--wait=false").CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatalf("kapp diff-run: %v\n%s", err, out)
		}
		t.Logf("kapp --diff-run %s: exit %d\n%s", filepath.Base(file), ee.ExitCode(), out)
		return ee.ExitCode()
	}

	values := filepath.Join(pkg, "values.yml")
	if out, err := c.Kapp("deploy", "-a", app, "-n", ns, "-f", render("v1.yml", values), "--yes", "--wait=false"); err != nil {
		t.Fatalf("kapp deploy: %v\n%s", err, out)
	}
	waitForReplicas(t, core, ns, "demo", 2)
	if got := diffRun(filepath.Join(dir, "v1.yml")); got != changes {
		t.Fatalf("before rules: want the HPA ghost diff (exit 3), got %d", got)
	}

	run(t, bin, "capture", "--app", app, "-n", ns, "--kubeconfig", c.Kubeconfig, "--output-directory", filepath.Join(dir, "captured"))
	secret := filepath.Join(dir, "secret.yml")
	run(t, bin, "generate", "-d", filepath.Join(dir, "captured", "desired.yaml"), "-l", filepath.Join(dir, "captured", "live.yaml"),
		"-n", ns, "--output", "secret", "--package-install", app, "--output-file", secret)
	// kapp-controller writes each data key of the Secret as a file into the first ytt step.
	rulesFile := writeFile(t, filepath.Join(dir, "rebase-rules.yml"), secretFile(t, secret, "rebase-rules.yml"))

	if got := diffRun(render("v1-rules.yml", values, rulesFile)); got != noChanges {
		t.Errorf("with the generated Secret: kapp --diff-run exited %d, want %d", got, noChanges)
	}
	newValues := writeFile(t, filepath.Join(dir, "values-v2.yml"), "image: nginx:1.26\n")
	if got := diffRun(render("v2-rules.yml", newValues, rulesFile)); got != changes {
		t.Errorf("new image in the values: kapp --diff-run exited %d, want %d", got, changes)
	}

	// The CI job: passes with the generated rules, fails without rules and with stale ones.
	script, _ := filepath.Abs("../../examples/ci/check-package.sh")
	live := filepath.Join(dir, "captured", "live.yaml")
	noRules := writeFile(t, filepath.Join(dir, "none.yml"), "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nrebaseRules: []\n")
	staleSecret := writeFile(t, filepath.Join(dir, "stale.yml"), dropRulePath(t, secret, "revisionHistoryLimit"))
	for name, tc := range map[string]struct {
		rules string
		want  int
	}{"generated": {secret, 0}, "no rules": {noRules, 3}, "stale": {staleSecret, 3}} {
		cmd := exec.Command(script, filepath.Join(pkg, "config"), values, live, tc.rules)
		cmd.Env = append(os.Environ(), "PATH="+dir+":"+os.Getenv("PATH"), "NAMESPACE="+ns, "OUTPUT=github")
		out, err := cmd.CombinedOutput()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != tc.want {
			t.Errorf("CI script with %s rules: exit %d, want %d\n%s", name, code, tc.want, out)
		}
	}
}

// dropRulePath returns the generated file without the one rule path that names field (a plain
// path or a {regex} of sibling keys, as emit writes them), so the rules no longer remove that
// field's ghost diff. It fails the test unless exactly one path line names the field: an edit
// that changes nothing would let stale rules pass as fresh.
func dropRulePath(t *testing.T, path, field string) string {
	bs, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	dropped := 0
	for _, line := range strings.SplitAfter(string(bs), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "- [") && strings.Contains(line, field) {
			dropped++
			continue
		}
		kept = append(kept, line)
	}
	if dropped != 1 {
		t.Fatalf("%s: %d rule paths name %s, want 1 to make stale rules from", path, dropped, field)
	}
	return strings.Join(kept, "")
}

func buildRebasegen(t *testing.T, dir string) string {
	bin := filepath.Join(dir, "rebasegen")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/rebasegen").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func run(t *testing.T, bin string, args ...string) {
	out, err := exec.Command(bin, args...).CombinedOutput()
	t.Logf("rebasegen %s\n%s", strings.Join(args, " "), out)
	if err != nil {
		t.Fatalf("rebasegen %s: %v", args[0], err)
	}
}

func secretFile(t *testing.T, path, key string) string {
	bs, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		StringData map[string]string `json:"stringData"`
	}
	if err := yaml.Unmarshal(bs, &s); err != nil || s.StringData[key] == "" {
		t.Fatalf("%s has no stringData %s: %v", path, key, err)
	}
	return s.StringData[key]
}

func waitForReplicas(t *testing.T, core kubernetes.Interface, ns, name string, want int32) {
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		d, err := core.AppsV1().Deployments(ns).Get(context.Background(), name, metav1.GetOptions{})
		if err == nil && d.Spec.Replicas != nil && *d.Spec.Replicas == want {
			return
		}
		time.Sleep(time.Second)
	}
	t.Fatalf("the HPA did not scale %s/%s to %d replicas", ns, name, want)
}
