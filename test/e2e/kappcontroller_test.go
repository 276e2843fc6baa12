package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/yaml"

	"github.com/rebasegen/rebasegen/internal/testcluster"
)

// syncsPerPhase is N: the syncs counted in each phase of the scene. kapp-controller's shortest
// sync period is 30s, so a phase takes about N*30s.
const syncsPerPhase = 3

var appGVR = schema.GroupVersionResource{Group: "kappctrl.k14s.io", Version: "v1alpha1", Resource: "apps"}

// The mission's scene on a real kapp-controller (v0.51.0, the controller built from the module
// go.mod pins) and the real HPA controller: an App fetches the pkg-demo package inline (Deployment
// + Service + HPA), templates it with ytt and deploys it with kapp every sync.
//  1. Without rules every sync's kapp deploy applies a change: it puts replicas 1 back, the HPA
//     scales to 2 again.
//  2. `rebasegen capture` the App's kapp app, `generate --format secret`, add the Secret's files to
//     the App's ytt step: no sync applies anything, the HPA's replica count stays.
//  3. A new image in the package: exactly one sync applies it, the following ones nothing.
func TestE2EKappControllerScene(t *testing.T) {
	c := testcluster.Shared(t, testcluster.Options{ControllerManager: true, KappController: true})
	const ns, app = "kc-scene", "demo"
	ctx := context.Background()
	dir := t.TempDir()
	bin := buildRebasegen(t, dir)
	core, err := kubernetes.NewForConfig(c.Config)
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(c.Config)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := core.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// the deploy target: this cluster, through a kubeconfig Secret (spec.cluster)
	if _, err := core.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "target"},
		StringData: map[string]string{"value": flatKubeconfig(t, c.Kubeconfig, ns)}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pkg := "../../fixtures/packages/pkg-demo"
	values, err := os.ReadFile(filepath.Join(pkg, "values.yml"))
	if err != nil {
		t.Fatal(err)
	}
	appCR := appSpec(t, app, ns, pkg, string(values))
	if _, err := dyn.Resource(appGVR).Namespace(ns).Create(ctx, appCR, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	w := &syncWatch{t: t, dyn: dyn, core: core, ns: ns, app: app, seen: map[string]bool{}}
	first := w.next(1, 0)
	if first[0].changes == 0 {
		t.Fatalf("the first sync created nothing:\n%s", first[0].stdout)
	}
	waitForReplicas(t, core, ns, app, 2)

	// 1. without rules
	before := w.next(syncsPerPhase, 0)
	t.Logf("without rules: %d of %d syncs applied changes", countChanged(before), len(before))
	if n := countChanged(before); n != syncsPerPhase {
		t.Errorf("without rules: %d of %d syncs applied changes, want every one (the HPA ghost diff)", n, syncsPerPhase)
	}

	// 2. capture, generate the Secret, add its files to the App's ytt step
	run(t, bin, "capture", "-q", "--app", app+".app", "-n", ns, "--kubeconfig", c.Kubeconfig, "--output-directory", filepath.Join(dir, "captured"))
	secretPath := filepath.Join(dir, "secret.yml")
	run(t, bin, "generate", "-q", "-d", filepath.Join(dir, "captured", "desired.yaml"), "-l", filepath.Join(dir, "captured", "live.yaml"),
		"-n", ns, "--format", "secret", "--package-install", app, "--output-file", secretPath)
	secret := readSecret(t, secretPath)
	if _, err := core.CoreV1().Secrets(ns).Create(ctx, secret, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	gen := w.update(func(a *unstructured.Unstructured) {
		ytt := a.Object["spec"].(map[string]any)["template"].([]any)[0].(map[string]any)["ytt"].(map[string]any)
		ytt["inline"] = map[string]any{"pathsFrom": []any{map[string]any{"secretRef": map[string]any{"name": secret.Name}}}}
	})
	replicasGen := deploymentGeneration(t, core, ns, app)
	with := w.next(syncsPerPhase, gen)
	t.Logf("with the generated Secret: %d of %d syncs applied changes", countChanged(with), len(with))
	if n := countChanged(with); n != 0 {
		t.Errorf("with the generated Secret: %d of %d syncs applied changes, want 0", n, syncsPerPhase)
	}
	for _, s := range with {
		if s.replicas != 2 || s.deploymentGeneration != replicasGen {
			t.Errorf("with the generated Secret: after a sync the Deployment has %d replicas at generation %d, want the HPA's 2 untouched at %d",
				s.replicas, s.deploymentGeneration, replicasGen)
		}
	}

	// 3. a real change still deploys, once
	gen = w.update(func(a *unstructured.Unstructured) {
		paths := a.Object["spec"].(map[string]any)["fetch"].([]any)[0].(map[string]any)["inline"].(map[string]any)["paths"].(map[string]any)
		paths["values.yml"] = "image: nginx:1.26\n"
	})
	changed := w.next(syncsPerPhase, gen)
	t.Logf("new image: %d of %d syncs applied changes (first: %v)", countChanged(changed), len(changed), changed[0].changes > 0)
	if changed[0].changes == 0 || countChanged(changed) != 1 {
		t.Errorf("new image: syncs applied %v changes, want the first and only the first", changesOf(changed))
	}
	d, err := core.AppsV1().Deployments(ns).Get(ctx, app, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if img := d.Spec.Template.Spec.Containers[0].Image; img != "nginx:1.26" || *d.Spec.Replicas != 2 {
		t.Errorf("after the new image: image %s, %d replicas; want nginx:1.26 and the HPA's 2", img, *d.Spec.Replicas)
	}
	fmt.Printf("kapp-controller scene (%d syncs each): without rules %d changed, with the generated Secret %d, new image %d (%v)\n",
		syncsPerPhase, countChanged(before), countChanged(with), countChanged(changed), changesOf(changed))
}

// appSpec is the App: the package's files fetched inline, ytt with the package's values, kapp.
func appSpec(t *testing.T, name, ns, pkg, values string) *unstructured.Unstructured {
	paths := map[string]any{"values.yml": values}
	for _, f := range []string{"app.yml", "schema.yml"} {
		bs, err := os.ReadFile(filepath.Join(pkg, "config", f))
		if err != nil {
			t.Fatal(err)
		}
		paths["config/"+f] = string(bs)
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kappctrl.k14s.io/v1alpha1", "kind": "App",
		"metadata": map[string]any{"name": name, "namespace": ns},
		"spec": map[string]any{
			"syncPeriod": "30s", // kapp-controller's minimum
			"cluster":    map[string]any{"namespace": ns, "kubeconfigSecretRef": map[string]any{"name": "target", "key": "value"}},
			"fetch":      []any{map[string]any{"inline": map[string]any{"paths": paths}}},
			"template":   []any{map[string]any{"ytt": map[string]any{"paths": []any{"config"}, "valuesFrom": []any{map[string]any{"path": "values.yml"}}}}},
			// no node runs the pods: kapp must not wait for the Deployment to become available
			"deploy": []any{map[string]any{"kapp": map[string]any{"rawOptions": []any{"--wait=false"}}}},
		},
	}}
}

// flatKubeconfig is the admin kubeconfig with its certificates inlined, defaulting to ns.
func flatKubeconfig(t *testing.T, path, ns string) string {
	cfg, err := clientcmd.LoadFromFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := clientcmdapi.FlattenConfig(cfg); err != nil {
		t.Fatal(err)
	}
	cfg.Contexts[cfg.CurrentContext].Namespace = ns
	bs, err := clientcmd.Write(*cfg)
	if err != nil {
		t.Fatal(err)
	}
	return string(bs)
}

func readSecret(t *testing.T, path string) *corev1.Secret {
	bs, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s corev1.Secret
	if err := yaml.Unmarshal(bs, &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

func deploymentGeneration(t *testing.T, core kubernetes.Interface, ns, name string) int64 {
	d, err := core.AppsV1().Deployments(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return d.Generation
}

// appSync is one finished sync of the App: what its kapp deploy applied, and the Deployment after.
type appSync struct {
	startedAt            string
	changes              int // create + update + delete in kapp's "Op:" line
	stdout               string
	replicas             int32
	deploymentGeneration int64
}

type syncWatch struct {
	t    *testing.T
	dyn  dynamic.Interface
	core kubernetes.Interface
	ns   string
	app  string
	seen map[string]bool // status.deploy.startedAt of the syncs already counted
	// syncs started before this instant ran the App's spec before the last update, even when
	// they finish after it and report its generation as observed
	since time.Time
}

// kapp's summary line, e.g. "Op:      0 create, 0 delete, 1 update, 0 noop, 0 exists".
var opLine = regexp.MustCompile(`Op:\s+(\d+) create, (\d+) delete, (\d+) update, (\d+) noop`)

// next waits for n syncs not seen yet, of App generation gen or later, each at most a sync period
// and a deploy apart.
func (w *syncWatch) next(n int, gen int64) []appSync {
	t := w.t
	var out []appSync
	deadline := time.Now().Add(time.Duration(n) * 90 * time.Second)
	for len(out) < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d syncs seen in time; App status:\n%s", len(out), n, w.status())
		}
		a, err := w.dyn.Resource(appGVR).Namespace(w.ns).Get(context.Background(), w.app, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		observed, _, _ := unstructured.NestedInt64(a.Object, "status", "observedGeneration")
		deploy, _, _ := unstructured.NestedMap(a.Object, "status", "deploy")
		started, _ := deploy["startedAt"].(string)
		if finished, _ := deploy["finished"].(bool); !finished || started == "" || w.seen[started] || observed < gen {
			time.Sleep(500 * time.Millisecond)
			continue
		}
		w.seen[started] = true
		if at, err := time.Parse(time.RFC3339, started); err != nil {
			t.Fatalf("App status.deploy.startedAt %q: %v", started, err)
		} else if at.Before(w.since) {
			t.Logf("sync at %s started before the App's last update: not counted", started)
			continue
		}
		stdout, _ := deploy["stdout"].(string)
		if code, _ := deploy["exitCode"].(int64); code != 0 {
			t.Fatalf("kapp deploy exited %d:\n%s\n%v", code, stdout, deploy["stderr"])
		}
		m := opLine.FindStringSubmatch(stdout)
		if m == nil {
			t.Fatalf("no Op: line in kapp deploy's output:\n%s", stdout)
		}
		s := appSync{startedAt: started, stdout: stdout, changes: atoi(m[1]) + atoi(m[2]) + atoi(m[3])}
		d, err := w.core.AppsV1().Deployments(w.ns).Get(context.Background(), w.app, metav1.GetOptions{})
		if err == nil {
			s.replicas, s.deploymentGeneration = *d.Spec.Replicas, d.Generation
		}
		t.Logf("sync at %s: %s (Deployment: %d replicas, generation %d)", started, m[0], s.replicas, s.deploymentGeneration)
		out = append(out, s)
	}
	return out
}

// update changes the App's spec and returns its new generation. The sync it starts at once must
// not start in the second the last one did: syncs are told apart by status.deploy.startedAt, which
// has whole seconds. The update is made at the start of a second, so that the syncs started from
// that second on are the update's, and one already running is not.
func (w *syncWatch) update(change func(*unstructured.Unstructured)) int64 {
	time.Sleep(1100 * time.Millisecond)
	w.since = time.Now().Truncate(time.Second).Add(time.Second)
	time.Sleep(time.Until(w.since))
	// kapp-controller writes the App's status meanwhile: an update made on an older read conflicts,
	// and is made again on a fresh one (CI of 397bca2: "the object has been modified").
	var gen int64
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		a, err := w.dyn.Resource(appGVR).Namespace(w.ns).Get(context.Background(), w.app, metav1.GetOptions{})
		if err != nil {
			return err
		}
		change(a)
		a, err = w.dyn.Resource(appGVR).Namespace(w.ns).Update(context.Background(), a, metav1.UpdateOptions{})
		if err != nil {
			return err
		}
		gen = a.GetGeneration()
		return nil
	})
	if err != nil {
		w.t.Fatal(err)
	}
	return gen
}

func (w *syncWatch) status() string {
	a, err := w.dyn.Resource(appGVR).Namespace(w.ns).Get(context.Background(), w.app, metav1.GetOptions{})
	if err != nil {
		return err.Error()
	}
	bs, _ := yaml.Marshal(a.Object["status"])
	return string(bs)
}

func countChanged(syncs []appSync) int {
	n := 0
	for _, s := range syncs {
		if s.changes > 0 {
			n++
		}
	}
	return n
}

func changesOf(syncs []appSync) []int {
	var out []int
	for _, s := range syncs {
		out = append(out, s.changes)
	}
	return out
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }
