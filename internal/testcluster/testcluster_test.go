package testcluster

import (
	"context"
	"strings"
	"testing"

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
