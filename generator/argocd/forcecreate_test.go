package argocd_test

import (
	"strings"
	"testing"

	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/kubernetes/pkg/apis/apps"
	appsvalidation "k8s.io/kubernetes/pkg/apis/apps/validation"
	api "k8s.io/kubernetes/pkg/apis/core"
	corevalidation "k8s.io/kubernetes/pkg/apis/core/validation"

	"github.com/rebasegen/rebasegen/generator/argocd"
)

// Argo CD's sync option Force=true deletes and creates an object whose update the server refuses
// (kubectl apply --force, kubectl replace --force beside Replace=true): the create must then pass
// the server's create validation, or the object stays deleted. A selector changed in Git (its
// update refused) with a containerPort of 70000 (refused on create) passed under Force=true,
// "pending (Argo CD syncs it)", exit 0; it now fails, naming the create's refusal, as kapp's
// replace is judged (fix31b, classify's create validation). Control: port 8080 under Force=true
// still passes. The oracle is Kubernetes' create validation called on the Deployment built by
// hand in its internal types.
func TestForceTrueRecreateJudgedByCreateValidation(t *testing.T) {
	const refusal = "spec.template.spec.containers[0].ports[0].containerPort: Invalid value: must be between 1 and 65535, inclusive"
	for _, port := range []int32{70000, 8080} {
		labels := map[string]string{"app.kubernetes.io/name": "web", "tier": "front"}
		d := &apps.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "argo-hpa"}, Spec: apps.DeploymentSpec{
			Replicas: 1, Selector: &metav1.LabelSelector{MatchLabels: labels}, RevisionHistoryLimit: new(int32(10)), ProgressDeadlineSeconds: new(int32(600)),
			Strategy: apps.DeploymentStrategy{Type: apps.RollingUpdateDeploymentStrategyType, RollingUpdate: &apps.RollingUpdateDeployment{MaxSurge: intstr.FromString("25%"), MaxUnavailable: intstr.FromString("25%")}},
			Template: api.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: api.PodSpec{
				RestartPolicy: api.RestartPolicyAlways, DNSPolicy: api.DNSClusterFirst, TerminationGracePeriodSeconds: new(int64(30)), SchedulerName: "default-scheduler", SecurityContext: &api.PodSecurityContext{},
				Containers: []api.Container{{Name: "web", Image: "nginx:1.25", ImagePullPolicy: api.PullIfNotPresent, TerminationMessagePath: "/dev/termination-log", TerminationMessagePolicy: api.TerminationMessageReadFile,
					Ports:     []api.ContainerPort{{ContainerPort: port, Protocol: api.ProtocolTCP}},
					Resources: api.ResourceRequirements{Requests: api.ResourceList{api.ResourceCPU: apiresource.MustParse("100m"), api.ResourceMemory: apiresource.MustParse("64Mi")}}}},
			}},
		}}
		errs := appsvalidation.ValidateDeployment(d, corevalidation.PodValidationOptions{})
		if refused := len(errs) > 0; refused != (port == 70000) || refused && refusal != errs[0].Field+": "+errs[0].Type.String()+": "+errs[0].Detail {
			t.Fatalf("oracle: the create of port %d: %v", port, errs)
		}
	}
	edit := func(port string) string {
		text := readFixture(t, "argo-hpa", "desired.yaml")
		text = strings.Replace(text, "    matchLabels:\n      app.kubernetes.io/name: web\n", "    matchLabels:\n      app.kubernetes.io/name: web\n      tier: front\n", 1)
		text = strings.Replace(text, "      labels:\n        app.kubernetes.io/name: web\n", "      labels:\n        app.kubernetes.io/name: web\n        tier: front\n", 1)
		text = strings.Replace(text, "containerPort: 80\n", "containerPort: "+port+"\n", 1)
		return strings.Replace(text, "metadata:\n  name: web\n  labels:", "metadata:\n  name: web\n  annotations:\n    argocd.argoproj.io/sync-options: Force=true\n  labels:", 1)
	}
	s := settingsOf(t, "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: argo-hpa, namespace: argocd}\nspec: {}\n")
	for _, port := range []string{"70000", "8080"} {
		desired := edit(port)
		if !strings.Contains(desired, "tier: front") || !strings.Contains(desired, "containerPort: "+port) || !strings.Contains(desired, "Force=true") {
			t.Fatal("the manifest was not edited")
		}
		a := analyzeFiles(t, desired, readFixture(t, "argo-hpa", "live.yaml"), "argo-hpa")
		res, v := synthesizeAndVerify(t, a, s)
		var failing []string
		for _, f := range argocd.Findings(res.Left, v, nil, "") {
			if f.Fails && f.Resource.Kind == "Deployment" {
				failing = append(failing, string(f.Kind)+" "+f.Path+": "+f.Evidence)
			}
		}
		if port == "8080" {
			if len(failing) > 0 {
				t.Errorf("port 8080 under Force=true fails, though the server creates it: %q", failing)
			}
			continue
		}
		found := false
		for _, f := range failing {
			found = found || strings.HasPrefix(f, "immutable spec.selector.matchLabels.tier: ") && strings.Contains(f, "Force=true") &&
				strings.Contains(f, "refuses to create") && strings.Contains(f, refusal) && !strings.Contains(f, "kapp")
		}
		if !found {
			t.Errorf("port 70000 under Force=true: no failing finding at the selector naming Force=true and the create's refusal: %q", failing)
		}
	}
}
