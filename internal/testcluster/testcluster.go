// Package testcluster starts the real control plane (etcd, kube-apiserver, optionally
// kube-controller-manager; built by hack/tools.sh) for tests that need a cluster, through
// hack/cluster/start.sh.
//
// Tests are skipped unless REBASEGEN_E2E=1 (`make e2e`); with REBASEGEN_E2E=1 missing binaries fail
// the test, so a broken e2e setup never passes silently.
package testcluster

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rebasegen/rebasegen/internal/kappconv"
	"golang.org/x/mod/modfile"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Versions of kapp and ytt in .cache/bin: those go.mod pins. The control plane's are those its
// build modules require (controlPlane).
const (
	KappVersion = "v" + kappconv.Kapp
	YttVersion  = "v" + kappconv.YTT
)

// controlPlane returns the control plane binaries in binDir: etcd, kube-apiserver and
// kube-controller-manager at the versions hack/cluster/etcd/go.mod and hack/cluster/k8s/go.mod
// require, as build.sh builds them and start.sh runs them. The cluster is what people run; the
// defaulting code linked into rebasegen (kappconv.Kubernetes) is another version.
func controlPlane(root, binDir string) (etcd, apiserver, controllerManager string, err error) {
	version := func(dir, module string) (string, error) {
		path := filepath.Join(root, "hack", "cluster", dir, "go.mod")
		data, err := os.ReadFile(path)
		if err != nil {
			return "", err
		}
		f, err := modfile.ParseLax(path, data, nil)
		if err != nil {
			return "", err
		}
		for _, r := range f.Require {
			if r.Mod.Path == module {
				return r.Mod.Version, nil
			}
		}
		return "", fmt.Errorf("%s does not require %s", path, module)
	}
	ev, err := version("etcd", "go.etcd.io/etcd/server/v3")
	if err != nil {
		return "", "", "", err
	}
	kv, err := version("k8s", "k8s.io/kubernetes")
	if err != nil {
		return "", "", "", err
	}
	return filepath.Join(binDir, "etcd-"+ev), filepath.Join(binDir, "kube-apiserver-"+kv), filepath.Join(binDir, "kube-controller-manager-"+kv), nil
}

// Options selects what to start.
type Options struct {
	// ControllerManager also starts kube-controller-manager (HPA, clusterrole aggregation,
	// namespace, workload controllers). There is never a scheduler or a node.
	ControllerManager bool
	// KappController also installs kapp-controller's CRDs and runs its controller out of cluster
	// (built by hack/cluster/build.sh at the version the main go.mod pins), with kapp, ytt and
	// vendir from BinDir on its PATH, no packaging API server and no listener.
	KappController bool
}

// Cluster is a running control plane.
type Cluster struct {
	Kubeconfig string       // admin kubeconfig
	BinDir     string       // .cache/bin: kapp, ytt and the control plane binaries
	Root       string       // repository root
	Config     *rest.Config // from Kubeconfig
	stateDir   string
}

// Start starts a cluster for t and stops it when t ends.
func Start(t testing.TB, opts Options) *Cluster {
	t.Helper()
	c, err := start(t, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.stop(); err != nil {
			t.Error(err)
		}
	})
	return c
}

var shared struct {
	sync.Mutex
	inMain   bool
	clusters map[Options]*Cluster
}

// Main is for TestMain in packages whose tests call Shared: it runs the tests, then stops the
// shared clusters.
//
//	func TestMain(m *testing.M) { testcluster.Main(m) }
func Main(m *testing.M) {
	shared.Lock()
	shared.inMain = true
	shared.Unlock()
	code := m.Run()
	shared.Lock()
	for _, c := range shared.clusters {
		if err := c.stop(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	shared.Unlock()
	os.Exit(code)
}

// Shared returns the cluster shared by every test of this test binary that asks for the same
// Options, starting it on first use (saves a few seconds per test). Tests sharing a cluster must use
// their own namespaces and app names. Needs Main in TestMain.
func Shared(t testing.TB, opts Options) *Cluster {
	t.Helper()
	shared.Lock()
	defer shared.Unlock()
	if !shared.inMain {
		t.Fatal("testcluster.Shared needs `func TestMain(m *testing.M) { testcluster.Main(m) }`")
	}
	if c := shared.clusters[opts]; c != nil {
		return c
	}
	c, err := start(t, opts)
	if err != nil {
		t.Fatal(err)
	}
	if shared.clusters == nil {
		shared.clusters = map[Options]*Cluster{}
	}
	shared.clusters[opts] = c
	return c
}

// StateDir holds the cluster's certificates and its processes' logs (kapp-controller.log, ...).
func (c *Cluster) StateDir() string { return c.stateDir }

// KappPath is the kapp binary. Run it with argv[0] "kapp" (KappCmd does): kapp's field manager
// is its argv[0], and managedFields must say "kapp" as on users' clusters.
func (c *Cluster) KappPath() string { return filepath.Join(c.BinDir, "kapp-"+KappVersion) }

// YttPath is the ytt binary.
func (c *Cluster) YttPath() string { return filepath.Join(c.BinDir, "ytt-"+YttVersion) }

// KappCmd prepares kapp against the cluster, named "kapp" in argv[0].
func (c *Cluster) KappCmd(args ...string) *exec.Cmd {
	cmd := exec.Command(c.KappPath(), args...)
	cmd.Args[0] = "kapp"
	cmd.Env = append(os.Environ(), "KUBECONFIG="+c.Kubeconfig)
	return cmd
}

// Kapp runs kapp against the cluster and returns its combined output.
func (c *Cluster) Kapp(args ...string) (string, error) {
	out, err := c.KappCmd(args...).CombinedOutput()
	if err != nil {
		err = fmt.Errorf("kapp %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return string(out), err
}

func start(t testing.TB, opts Options) (*Cluster, error) {
	if os.Getenv("REBASEGEN_E2E") != "1" {
		t.Skip("needs a real cluster: run `make e2e`")
	}
	root, err := repoRoot()
	if err != nil {
		return nil, err
	}
	c := &Cluster{Root: root, BinDir: filepath.Join(root, ".cache", "bin")}
	etcd, apiserver, kcm, err := controlPlane(root, c.BinDir)
	if err != nil {
		return nil, err
	}
	need := []string{c.KappPath(), c.YttPath(), etcd, apiserver}
	if opts.ControllerManager {
		need = append(need, kcm)
	}
	for _, p := range need {
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("REBASEGEN_E2E=1 but %s is missing: run hack/tools.sh", p)
		}
	}
	cmd := exec.Command("bash", c.script(), "start")
	cmd.Env = append(os.Environ(), "BIN_DIR="+c.BinDir, "WITH_CONTROLLER_MANAGER=", "WITH_KAPP_CONTROLLER=")
	if opts.ControllerManager {
		cmd.Env = append(cmd.Env, "WITH_CONTROLLER_MANAGER=1")
	}
	if opts.KappController { // start.sh checks for its binaries
		cmd.Env = append(cmd.Env, "WITH_KAPP_CONTROLLER=1")
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("start.sh start: %w\n%s", err, stderr.String())
	}
	t.Log(strings.TrimSpace(stderr.String()))
	// out: export KUBECONFIG=... CLUSTER_STATE_DIR=... (paths from mktemp need no quoting)
	for _, f := range strings.Fields(string(out)) {
		if v, ok := strings.CutPrefix(f, "CLUSTER_STATE_DIR="); ok {
			c.stateDir = v
		}
	}
	if c.stateDir == "" {
		return nil, fmt.Errorf("start.sh start printed no CLUSTER_STATE_DIR: %q", out)
	}
	c.Kubeconfig = filepath.Join(c.stateDir, "kubeconfig")
	if c.Config, err = clientcmd.BuildConfigFromFlags("", c.Kubeconfig); err != nil {
		c.stop()
		return nil, err
	}
	return c, nil
}

func (c *Cluster) script() string { return filepath.Join(c.Root, "hack", "cluster", "start.sh") }

func (c *Cluster) stop() error {
	cmd := exec.Command("bash", c.script(), "stop", c.stateDir)
	// the state is thrown away: no need for a graceful shutdown
	cmd.Env = append(os.Environ(), "FAST_STOP=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("start.sh stop: %w\n%s", err, out)
	}
	return nil
}

// repoRoot walks up from the working directory (a test runs in its package directory) to go.mod.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "hack", "cluster", "start.sh")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("repository root (with hack/cluster/start.sh) not found above the working directory")
		}
		dir = parent
	}
}
