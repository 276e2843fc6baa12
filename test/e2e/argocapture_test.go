package e2e

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/argoproj/argo-cd/gitops-engine/v3/pkg/utils/kube"
	"github.com/argoproj/argo-cd/gitops-engine/v3/pkg/utils/tracing"
	"github.com/argoproj/argo-cd/v3/common"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/argoproj/argo-cd/v3/util/argo"
	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"sigs.k8s.io/yaml"

	"github.com/rebasegen/rebasegen/internal/testcluster"
)

// TestE2ECaptureArgoCDApplication (newcomer3 finding 2): capture knew kapp apps only, so an Argo
// CD user had no way to the live state. Objects are applied as Argo CD v3.6.1's sync applies
// them, with its own code (its tracking, gitops-engine's kubectl apply: hack/capture/argocd.go),
// for the Application shop and, beside them, objects capture must leave: another Application's,
// one labelled app.kubernetes.io/instance=shop by something else (a Helm release) that
// annotation tracking does not track, and one carrying a tracking id of shop's copied from
// another object. `capture --argocd-app shop` must capture exactly shop's objects (the
// cluster-scoped one too), Secret values redacted; with `--argocd-tracking label`, the objects
// Argo CD's label tracking stamped.
func TestE2ECaptureArgoCDApplication(t *testing.T) {
	c := testcluster.Shared(t, testcluster.Options{})
	const ns, marker = "argo-capture", "ARGO-SECRET-VALUE"
	core, err := kubernetes.NewForConfig(c.Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := core.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	apply := func(app string, method v1alpha1.TrackingMethod, manifest string) {
		t.Helper()
		obj := parse(t, manifest)
		if err := argo.NewResourceTracking().SetAppInstance(obj, common.LabelKeyAppInstance, app, ns, method, ""); err != nil {
			t.Fatal(err)
		}
		ops, cleanup, err := (&kube.KubectlCmd{Log: logr.Discard(), Tracer: tracing.NopTracer{}}).ManageResources(c.Config)
		if err != nil {
			t.Fatal(err)
		}
		defer cleanup()
		if _, err := ops.ApplyResource(ctx, obj, cmdutil.DryRunNone, false, true, false, common.ArgoCDSSAManager); err != nil {
			t.Fatalf("argo cd apply of %s %s: %v", obj.GetKind(), obj.GetName(), err)
		}
	}
	apply("shop", v1alpha1.TrackingMethodAnnotation, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: shop-config, namespace: "+ns+"}\ndata: {a: b}\n")
	apply("shop", v1alpha1.TrackingMethodAnnotation, "apiVersion: v1\nkind: Secret\nmetadata: {name: shop-db, namespace: "+ns+"}\nstringData: {password: "+marker+"}\n")
	apply("shop", v1alpha1.TrackingMethodAnnotation, "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: argo-capture-shop}\nrules: []\n")
	apply("other", v1alpha1.TrackingMethodAnnotation, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: other-config, namespace: "+ns+"}\n")
	apply("legacy", v1alpha1.TrackingMethodLabel, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: legacy-config, namespace: "+ns+"}\n")
	for _, m := range []string{
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: helm-config, namespace: " + ns + ", labels: {app.kubernetes.io/instance: shop}}\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: copied, namespace: " + ns + ", annotations: {argocd.argoproj.io/tracking-id: 'shop:/ConfigMap:" + ns + "/shop-config'}}\n",
	} {
		var cm corev1.ConfigMap
		if err := yaml.Unmarshal([]byte(m), &cm); err != nil {
			t.Fatal(err)
		}
		if _, err := core.CoreV1().ConfigMaps(ns).Create(ctx, &cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	dir := t.TempDir()
	bin := buildRebasegen(t, dir)
	captured := func(args ...string) (live, desired []string, files string) {
		t.Helper()
		out := filepath.Join(dir, "captured-"+args[1])
		run(t, bin, append([]string{"capture", "-q", "--kubeconfig", c.Kubeconfig, "--output-directory", out}, args...)...)
		names := func(file string) []string {
			data, err := os.ReadFile(filepath.Join(out, file))
			if err != nil {
				t.Fatal(err)
			}
			files += string(data)
			var got []string
			for _, doc := range strings.Split(string(data), "\n---\n") {
				var u unstructured.Unstructured
				if err := yaml.Unmarshal([]byte(strings.TrimPrefix(doc, "---\n")), &u.Object); err != nil || u.Object == nil {
					continue
				}
				got = append(got, u.GetKind()+" "+u.GetName())
			}
			slices.Sort(got)
			return got
		}
		return names("live.yaml"), names("desired.yaml"), files
	}
	live, desired, files := captured("--argocd-app", "shop")
	if want := []string{"ClusterRole argo-capture-shop", "ConfigMap shop-config", "Secret shop-db"}; !slices.Equal(live, want) || !slices.Equal(desired, want) {
		t.Errorf("capture --argocd-app shop: live %v, desired %v; want %v (the objects Argo CD applied for shop, no other)", live, desired, want)
	}
	if strings.Contains(files, marker) {
		t.Errorf("capture --argocd-app shop wrote the Secret's value:\n%s", files)
	}
	if live, _, _ := captured("--argocd-app", "legacy", "--argocd-tracking", "label"); !slices.Equal(live, []string{"ConfigMap legacy-config"}) {
		t.Errorf("capture --argocd-app legacy --argocd-tracking label: %v, want [ConfigMap legacy-config]", live)
	}
	// the capture reads back as --live: the Argo CD target judges it, and the two objects shop
	// tracks that these manifests no longer declare are Argo CD's to prune: changes made in Git,
	// warnings (exit 0), failing the gate with --fail-on-delete
	manifests := writeFile(t, filepath.Join(dir, "shop.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: shop-config, namespace: "+ns+"}\ndata: {a: b}\n")
	none := writeFile(t, filepath.Join(dir, "none.yml"), "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: shop, namespace: argocd}\nspec: {ignoreDifferences: []}\n")
	for _, flags := range [][]string{nil, {"--fail-on-delete"}} {
		out, err := exec.Command(bin, append([]string{"check", "--target", "argocd", "-d", manifests, "-l", filepath.Join(dir, "captured-shop"), "--rules", none}, flags...)...).CombinedOutput()
		code := 0
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		want := 0
		if flags != nil {
			want = 3
		}
		if code != want || !strings.Contains(string(out), "pending delete: rbac.authorization.k8s.io/ClusterRole argo-capture-shop") || !strings.Contains(string(out), "pending delete: core/Secret "+ns+"/shop-db") {
			t.Errorf("check --target argocd -l the capture %v: exit %d, want %d with shop's ClusterRole and Secret pending delete\n%s", flags, code, want, out)
		}
	}
}
