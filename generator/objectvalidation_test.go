package generator_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kubernetes/pkg/apis/apps"
	appsvalidation "k8s.io/kubernetes/pkg/apis/apps/validation"
	api "k8s.io/kubernetes/pkg/apis/core"
	corevalidation "k8s.io/kubernetes/pkg/apis/core/validation"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// A change made in Git that makes the object invalid, not only one of an immutable field: a
// Deployment's containerPort 80 -> 70000 was "pending change from Git (kapp applies it on
// deploy)", exit 0, while the API server refuses kapp's update (probe16 P16-10: ValidatePodSpec's
// ports must be between 1 and 65535); now a failing finding naming the validation and the field.
// A valid port (8080) stays a pending change. The refusal is reported once, on the new port, as
// an invalid value (the create validation refuses it too) to fix in the manifest. On the real capture of fixtures/hpa-replicas; the
// oracle is Kubernetes' validation called on the update built by hand in its internal types.
func TestInvalidObjectMadeInGitFailsTheGate(t *testing.T) {
	dir := filepath.Join("..", "fixtures", "hpa-replicas")
	desired, err := os.ReadFile(filepath.Join(dir, "desired.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		port  int32
		fails bool
	}{{70000, true}, {8080, false}} {
		if errs := deploymentUpdate(tc.port); (len(errs) > 0) != tc.fails {
			t.Fatalf("oracle: port %d refused %v, want %v (%v)", tc.port, len(errs) > 0, tc.fails, errs)
		}
		manifest := strings.Replace(string(desired), "containerPort: 80\n", "containerPort: "+strconv.Itoa(int(tc.port))+"\n", 1)
		in := generator.Inputs{Desired: []string{writeFile(t, "desired.yaml", manifest)}, Live: []string{filepath.Join(dir, "live.yaml")}, ServerVersion: "v1.37.2"}
		ch, err := generator.Check(in, nil)
		if err != nil {
			t.Fatal(err)
		}
		const path = "spec.template.spec.containers[name=web].ports[containerPort=" // the item's key is the port itself
		found, refusals := false, 0
		for _, f := range ch.Findings(verdict.Gate{}) {
			if f.Resource.Kind != "Deployment" || !strings.HasPrefix(f.Path, path) || f.Kind == verdict.KindResidual {
				continue
			}
			found = true
			if f.Kind == verdict.KindImmutable {
				// invalid whatever it replaces (the create validation refuses it too): nothing is
				// immutable, and a replacement, a new name or versioned objects are refused alike
				// (newcomer15 N15-5: headlined "(immutable field)" with those remedies, twice)
				refusals++
				if strings.Contains(f.Evidence, "fallback-on-replace") || strings.Contains(f.Evidence, "versioned") || !strings.Contains(f.Evidence, "fix it in the manifest") ||
					!strings.Contains(f.Evidence, "other changes of the object with it: "+path+"80,") || strings.Contains(f.Kind.Label(), "immutable") || !strings.Contains(f.Kind.Label(), "refused by the API server's validation") {
					t.Errorf("port %d: %s %s: want the API server's validation named as refusing an invalid value, fixed in the manifest, the removed port with it: %s: %s", tc.port, f.Kind, f.Path, f.Kind.Label(), f.Evidence)
				}
			}
			refused := f.Kind == verdict.KindImmutable && f.Fails && strings.Contains(f.Evidence, "ValidateDeploymentUpdate): spec.template.spec.containers[0].ports[0].containerPort: Invalid value: must be between 1 and 65535")
			if tc.fails && !refused || !tc.fails && (f.Fails || f.Kind != verdict.KindPending) {
				t.Errorf("port %d: %s %s (fails %v): %s", tc.port, f.Kind, f.Path, f.Fails, f.Evidence)
			}
		}
		if !found {
			t.Errorf("port %d: no finding at %s...", tc.port, path)
		}
		if tc.fails && refusals != 1 {
			t.Errorf("port %d: the refused update is reported %d times, want once", tc.port, refusals)
		}
		if created := appsvalidation.ValidateDeployment(fixtureDeployment(tc.port), corevalidation.PodValidationOptions{}); (len(created) > 0) != tc.fails {
			t.Errorf("oracle: port %d refused on create %v, want %v (%v)", tc.port, len(created) > 0, tc.fails, created)
		}
	}
}

// deploymentUpdate is the server's validation of the update of the fixture's Deployment (port
// 80, as the server defaulted it) to one of port: ValidateDeploymentUpdate, which validates the
// new object whole.
func deploymentUpdate(port int32) field.ErrorList {
	return appsvalidation.ValidateDeploymentUpdate(fixtureDeployment(port), fixtureDeployment(80), corevalidation.PodValidationOptions{})
}

// fixtureDeployment is fixtures/hpa-replicas' Deployment as the server defaulted it, with port.
func fixtureDeployment(port int32) *apps.Deployment {
	labels := map[string]string{"app.kubernetes.io/name": "web"}
	return &apps.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "hpa-replicas", ResourceVersion: "1"}, Spec: apps.DeploymentSpec{
		Replicas: 1, Selector: &metav1.LabelSelector{MatchLabels: labels}, RevisionHistoryLimit: ref(int32(10)), ProgressDeadlineSeconds: ref(int32(600)),
		Strategy: apps.DeploymentStrategy{Type: apps.RollingUpdateDeploymentStrategyType, RollingUpdate: &apps.RollingUpdateDeployment{MaxSurge: intstr.FromString("25%"), MaxUnavailable: intstr.FromString("25%")}},
		Template: api.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: api.PodSpec{
			RestartPolicy: api.RestartPolicyAlways, DNSPolicy: api.DNSClusterFirst, TerminationGracePeriodSeconds: ref(int64(30)), SchedulerName: "default-scheduler", SecurityContext: &api.PodSecurityContext{},
			Containers: []api.Container{{Name: "web", Image: "nginx:1.25", ImagePullPolicy: api.PullIfNotPresent, TerminationMessagePath: "/dev/termination-log", TerminationMessagePolicy: api.TerminationMessageReadFile,
				Ports:     []api.ContainerPort{{ContainerPort: port, Protocol: api.ProtocolTCP}},
				Resources: api.ResourceRequirements{Requests: api.ResourceList{api.ResourceCPU: apiresource.MustParse("100m"), api.ResourceMemory: apiresource.MustParse("64Mi")}}}},
		}},
	}}
}
