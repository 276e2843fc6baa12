package testcluster

import (
	"context"
	"os"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

func TestMain(m *testing.M) { Main(m) }

func TestStart(t *testing.T) {
	c := Start(t, Options{})
	kube, err := kubernetes.NewForConfig(c.Config)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kube.CoreV1().Namespaces().Get(context.Background(), "default", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	cmd := c.KappCmd("deploy", "-a", "smoke", "-n", "default", "-f", "-", "--yes")
	cmd.Stdin = strings.NewReader("{apiVersion: v1, kind: ConfigMap, metadata: {name: smoke-config}, data: {a: b}}")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("kapp deploy: %v\n%s", err, out)
	}
	cm, err := kube.CoreV1().ConfigMaps("default").Get(context.Background(), "smoke-config", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// kapp's field manager is its argv[0]: it must say kapp, not kapp-<version>
	if m := cm.ManagedFields[0].Manager; m != "kapp" {
		t.Errorf("field manager %q, want kapp", m)
	}
}

func TestShared(t *testing.T) {
	a := Shared(t, Options{ControllerManager: true})
	b := Shared(t, Options{ControllerManager: true})
	if a != b {
		t.Fatal("Shared started a second cluster")
	}
}

// kapp-controller builds in its own module (hack/cluster/kappctrl) at the version the main go.mod
// pins, and vendir (hack/cluster/vendir) at the version kapp-controller requires.
func TestKappControllerPins(t *testing.T) {
	version := func(gomod, module string) string {
		t.Helper()
		data, err := os.ReadFile(gomod)
		if err != nil {
			t.Fatal(err)
		}
		f, err := modfile.Parse(gomod, data, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range f.Require {
			if r.Mod.Path == module {
				return r.Mod.Version
			}
		}
		t.Fatalf("%s does not require %s", gomod, module)
		return ""
	}
	const kc, vendir = "github.com/vmware-tanzu/carvel-kapp-controller", "carvel.dev/vendir"
	if a, b := version("../../go.mod", kc), version("../../hack/cluster/kappctrl/go.mod", kc); a != b {
		t.Errorf("kapp-controller: %s in go.mod, %s in hack/cluster/kappctrl/go.mod", a, b)
	}
	if a, b := version("../../hack/cluster/kappctrl/go.mod", vendir), version("../../hack/cluster/vendir/go.mod", vendir); a != b {
		t.Errorf("vendir: %s in kapp-controller's module graph, %s in hack/cluster/vendir/go.mod", a, b)
	}
}
