// Package e2e checks rebasegen against the real thing: a real kube-apiserver and
// kube-controller-manager (the version hack/cluster/k8s/go.mod pins) and the real kapp binary. Skipped by `make test`, run by
// `make e2e`.
package e2e

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/emit"
	"github.com/rebasegen/rebasegen/generator/synth"
	"github.com/rebasegen/rebasegen/generator/verify"
	"github.com/rebasegen/rebasegen/internal/scenario"
	"github.com/rebasegen/rebasegen/internal/testcluster"
)

func TestMain(m *testing.M) { testcluster.Main(m) }

// kapp's --diff-exit-status: 2 no changes, 3 pending changes.
const (
	noChanges = 2
	changes   = 3
)

// replicasRule is the hand-written rule of the classic HPA fix.
const replicasRule = `apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- path: [spec, replicas]
  type: copy
  sources: [existing, new]
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}
`

func TestE2EKappAgreesAndGeneratedRulesSilenceIt(t *testing.T) {
	c := testcluster.Shared(t, testcluster.Options{ControllerManager: true})
	for _, name := range []string{"hpa-replicas", "md5-invalidated", "hpa-real-change", "package-app"} {
		t.Run(name, func(t *testing.T) {
			r := replay(t, c, name)
			s, dir := r.s, r.dir
			desired, live := r.desired, r.live

			// 1. The verifier agrees with kapp on the ghost diff, without rules and with the
			// hand-written replicas rule.
			configs := map[string]string{"none": ""}
			if name == "hpa-replicas" {
				configs["replicas-rule"] = writeFile(t, filepath.Join(dir, "replicas.yml"), replicasRule)
			}
			for label, cfg := range configs {
				var cfgObjs []*unstructured.Unstructured
				files := []string{desired}
				if cfg != "" {
					cfgObjs = append(cfgObjs, parse(t, replicasRule))
					files = append(files, cfg)
				}
				want := verifierExit(t, s, r.objs, cfgObjs)
				if got := kappDiffRun(t, c, s, files...); got != want {
					t.Errorf("%s: kapp --diff-run exited %d, the verifier predicts %d", label, got, want)
				}
			}
			if got := kappDiffRun(t, c, s, desired); got != changes {
				t.Fatalf("the scenario shows no ghost diff to kapp (exit %d)", got)
			}

			// 2. Generated rules make kapp report no change.
			g, err := generator.Generate(generator.Inputs{Desired: []string{desired}, Live: []string{live}, Namespace: s.Namespace}, synth.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !g.Verification.OK() {
				t.Fatalf("verification failed: %s %v", g.Verification.Summary(), g.Verification.Residual)
			}
			var rules bytes.Buffer
			if err := emit.WriteRules(&rules, g.Rules, emit.Header{Version: "e2e"}); err != nil {
				t.Fatal(err)
			}
			rulesFile := writeFile(t, filepath.Join(dir, "rules.yml"), rules.String())
			if got := kappDiffRun(t, c, s, desired, rulesFile); got != noChanges {
				t.Errorf("with the generated rules kapp --diff-run exited %d, want %d (no changes)", got, noChanges)
			}

			// 3. A real change to the desired image is still a change.
			changed := writeYAML(t, filepath.Join(dir, "changed.yaml"), withNewImage(t, s))
			if got := kappDiffRun(t, c, s, changed, rulesFile); got != changes {
				t.Errorf("a real image change: kapp --diff-run exited %d, want %d", got, changes)
			}
		})
	}
}

// verifierExit is the exit status the verifier predicts for kapp's default base.
// replayed is a captured scenario run again on the test cluster: the scenario, a temporary
// directory for the test's files, and the live objects as the cluster returned them (also written
// to dir/live.yaml). The scenario's objects are deleted when the test ends.
type replayed struct {
	s       *scenario.Scenario
	dir     string
	desired string // the scenario's desired.yaml
	live    string
	objs    []*unstructured.Unstructured
}

func replay(t *testing.T, c *testcluster.Cluster, name string) replayed {
	t.Helper()
	s, err := scenario.Load(filepath.Join("..", "..", "fixtures", name))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	tg := scenario.Target{Kubeconfig: c.Kubeconfig, Kapp: c.KappPath(), Log: testLog{t}}
	res, err := s.Run(ctx, tg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Cleanup(context.Background(), tg) })
	dir := t.TempDir()
	return replayed{s: s, dir: dir, desired: filepath.Join(s.Dir, "desired.yaml"),
		live: writeYAML(t, filepath.Join(dir, "live.yaml"), res.Live), objs: res.Live}
}

func verifierExit(t *testing.T, s *scenario.Scenario, live []*unstructured.Unstructured, configs []*unstructured.Unstructured) int {
	var pairs []verify.Pair
	for i, o := range s.Objects {
		pairs = append(pairs, verify.Pair{Desired: o.Desired, Live: live[i]})
	}
	results, err := verify.Verify(pairs, configs)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		if r.Op[verify.LastApplied] != verify.OpKeep {
			return changes
		}
	}
	return noChanges
}

func kappDiffRun(t *testing.T, c *testcluster.Cluster, s *scenario.Scenario, files ...string) int {
	return kappDiffRunWith(t, c, s, nil, files...)
}

// kappDiffRunWith is kappDiffRun with more kapp flags.
func kappDiffRunWith(t *testing.T, c *testcluster.Cluster, s *scenario.Scenario, flags []string, files ...string) int {
	// --wait=false: no node ever runs a Pod here, and a pending wait also counts as a change
	args := append([]string{"deploy", "-a", s.Name, "-n", s.Namespace, "--diff-run", "--diff-exit-status", "--diff-changes", "--wait=false"}, flags...)
	for _, f := range files {
		args = append(args, "-f", f)
	}
	out, err := c.KappCmd(args...).CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("kapp %v: want an exit status, got %v\n%s", args, err, out)
	}
	t.Logf("kapp %s: exit %d\n%s", strings.Join(args, " "), ee.ExitCode(), out)
	return ee.ExitCode()
}

// withNewImage is the scenario's realChange, or else a new image for its first Deployment.
func withNewImage(t *testing.T, s *scenario.Scenario) []*unstructured.Unstructured {
	if s.RealChange != nil {
		out, err := s.DesiredWithRealChange()
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	var out []*unstructured.Unstructured
	done := false
	for _, o := range s.Objects {
		d := o.Desired.DeepCopy()
		if !done && d.GetKind() == "Deployment" {
			cs, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
			cs[0].(map[string]any)["image"] = "nginx:1.27-e2e"
			unstructured.SetNestedSlice(d.Object, cs, "spec", "template", "spec", "containers")
			done = true
		}
		out = append(out, d)
	}
	if !done {
		t.Fatal("no Deployment to change")
	}
	return out
}

func writeYAML(t *testing.T, path string, objs []*unstructured.Unstructured) string {
	var b bytes.Buffer
	for _, o := range objs {
		bs, err := yaml.Marshal(o.Object)
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString("---\n")
		b.Write(bs)
	}
	return writeFile(t, path, b.String())
}

func writeFile(t *testing.T, path, content string) string {
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func parse(t *testing.T, s string) *unstructured.Unstructured {
	var m map[string]any
	if err := yaml.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: m}
}

type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
