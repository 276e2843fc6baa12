package generator_test

import (
	"context"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/util/version"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/kubernetes/pkg/apis/batch"
	api "k8s.io/kubernetes/pkg/apis/core"
	jobregistry "k8s.io/kubernetes/pkg/registry/batch/job"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// A suspended Job's pod template stays immutable but for its scheduling directives (nodeSelector,
// node affinity, tolerations, labels, annotations, scheduling gates) while it has not started
// or is held suspended, and its containers' resources: rulesets/immutable.yaml's `unless:
// spec.suspend` lifted the whole template, so a suspended Job's image bump was "pending change
// from Git", exit 0, and the API server refused kapp's update (probe17 P17-5, seen with kapp
// v0.66.0 on kube-apiserver v1.37.2). Now the Job's update validation judges it, with the options
// its registry strategy passes: the image bump fails the gate, a nodeSelector added stays a
// pending change, and on a suspended Job that started and runs the nodeSelector is refused too.
// On the capture of fixtures/job-cronjob, the Job suspended; the oracle is the API server's Job
// strategy (pkg/registry/batch/job, linked by this test only) on the update built by hand.
func TestSuspendedJobTemplateChange(t *testing.T) {
	image := func(c map[string]any) { c["image"] = "busybox:1.37" }
	// generate's rules for the suspended Job, before the change made in Git (status: kapp's
	// built-in rules copy it)
	rules, _ := generatedRules(t, suspendedJob(t, false))
	for _, c := range []struct {
		name    string
		started bool // the live Job started, a pod active, no Suspended condition
		path    string
		change  func(template map[string]any)
		oracle  func(*api.PodTemplateSpec)
		refusal string // "" where the update is valid
	}{
		{"image, never started", false, "spec.template.spec.containers[name=migrate].image",
			func(tp map[string]any) { image(firstContainer(tp)) },
			func(tp *api.PodTemplateSpec) { tp.Spec.Containers[0].Image = "busybox:1.37" },
			"spec.template.spec: Invalid value: field is immutable"},
		{"nodeSelector, never started", false, "spec.template.spec.nodeSelector",
			func(tp map[string]any) { tp["spec"].(map[string]any)["nodeSelector"] = map[string]any{"pool": "batch"} },
			func(tp *api.PodTemplateSpec) { tp.Spec.NodeSelector = map[string]string{"pool": "batch"} },
			""},
		{"nodeSelector, started and running", true, "spec.template.spec.nodeSelector",
			func(tp map[string]any) { tp["spec"].(map[string]any)["nodeSelector"] = map[string]any{"pool": "batch"} },
			func(tp *api.PodTemplateSpec) { tp.Spec.NodeSelector = map[string]string{"pool": "batch"} },
			"spec.template: Invalid value: field is immutable"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if errs := suspendedJobUpdate(c.started, c.oracle); len(errs) > 0 != (c.refusal != "") || c.refusal != "" && !strings.Contains(errs.ToAggregate().Error(), strings.SplitN(c.refusal, ":", 2)[0]) {
				t.Fatalf("oracle: %v, want %q", errs, c.refusal)
			}
			in := suspendedJob(t, c.started)
			in.Desired = []string{editedKind(t, in.Desired[0], "Job", func(u *unstructured.Unstructured) {
				c.change(u.Object["spec"].(map[string]any)["template"].(map[string]any))
			})}
			ch, err := generator.Check(in, []string{rules})
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, f := range ch.Findings(verdict.Gate{}) {
				if f.Resource.Kind != "Job" {
					continue
				}
				if f.Path != c.path {
					if f.Fails {
						t.Errorf("%s fails: %s", f.Path, f.Evidence)
					}
					continue
				}
				found = true
				refused := f.Kind == verdict.KindImmutable && f.Fails && strings.Contains(f.Evidence, "(k8s.io/kubernetes v1.37.2 pkg/apis/batch/validation ValidateJobUpdate): "+c.refusal)
				if c.refusal != "" && !refused || c.refusal == "" && (f.Fails || f.Kind != verdict.KindPending) {
					t.Errorf("want refused %v, got %s (fails %v): %s", c.refusal != "", f.Kind, f.Fails, f.Evidence)
				}
			}
			if !found {
				t.Errorf("no finding at %s", c.path)
			}
		})
	}
}

// suspendedJob is fixtures/job-cronjob with its Job deployed suspended: the manifest, kapp's last
// apply and the live spec hold suspend; a Job that never started has no status.
func suspendedJob(t *testing.T, started bool) generator.Inputs {
	const dir = "../fixtures/job-cronjob/"
	in := fixture("job-cronjob")
	in.Desired = []string{editedKind(t, dir+"desired.yaml", "Job", func(u *unstructured.Unstructured) {
		_ = unstructured.SetNestedField(u.Object, true, "spec", "suspend")
	})}
	in.Live = []string{editedKind(t, dir+"live.yaml", "Job", func(u *unstructured.Unstructured) {
		_ = unstructured.SetNestedField(u.Object, true, "spec", "suspend")
		if !started {
			delete(u.Object, "status")
		}
		setInOriginal(t, u, true, "spec", "suspend")
	})}
	return in
}

// firstContainer is a pod template's first container.
func firstContainer(template map[string]any) map[string]any {
	return template["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
}

// suspendedJobUpdate is the API server's Job strategy's judgment of the update of the captured
// Job, suspended (started: it started and a pod is active), to one whose template change made.
func suspendedJobUpdate(started bool, change func(*api.PodTemplateSpec)) field.ErrorList {
	const uid = "23b4b1c6-121e-4fb1-abb9-87ce5e07003f"
	labels := map[string]string{"app.kubernetes.io/name": "db-migrate", batch.ControllerUidLabel: uid, batch.JobNameLabel: "db-migrate", "controller-uid": uid, "job-name": "db-migrate"}
	old := &batch.Job{ObjectMeta: metav1.ObjectMeta{Name: "db-migrate", Namespace: "job-cronjob", UID: uid, ResourceVersion: "1"},
		Spec: batch.JobSpec{Parallelism: ref(int32(1)), Completions: ref(int32(1)), BackoffLimit: ref(int32(3)), Suspend: ref(true), ManualSelector: ref(false),
			CompletionMode: ref(batch.NonIndexedCompletion), PodReplacementPolicy: ref(batch.TerminatingOrFailed),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{batch.ControllerUidLabel: uid}},
			Template: api.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: api.PodSpec{
				RestartPolicy: api.RestartPolicyNever, DNSPolicy: api.DNSClusterFirst, TerminationGracePeriodSeconds: ref(int64(30)), SchedulerName: "default-scheduler", SecurityContext: &api.PodSecurityContext{},
				Containers: []api.Container{{Name: "migrate", Image: "busybox:1.36", Command: []string{"sh", "-c", "echo migrating"}, ImagePullPolicy: api.PullIfNotPresent,
					TerminationMessagePath: "/dev/termination-log", TerminationMessagePolicy: api.TerminationMessageReadFile}},
			}}}}
	if started {
		now := metav1.Now()
		old.Status = batch.JobStatus{StartTime: &now, Active: 1}
	}
	nw := old.DeepCopy()
	change(&nw.Spec.Template)
	ctx := context.Background()
	jobregistry.Strategy.PrepareForUpdate(ctx, nw, old)
	return jobregistry.Strategy.ValidateUpdate(ctx, nw, old)
}

// The update kapp's last apply (kapp.k14s.io/original) makes is refused with the same message as
// the change made in Git, for another cause (fix31b, issue 23): without generated rules, kapp's
// update of a running suspended Job's template drops the controller's labels the live template
// holds, "spec.template: Invalid value: field is immutable"; a nodeSelector added in Git meets
// that very text, so the filter of errors the last apply meets as well, comparing text, left the
// change "pending change from Git (kapp applies it on deploy)". Compared by cause (the field, the
// reason and the value refused: here the template Git changed), the change is refused. The oracle
// is the API server's Job strategy on the update built by hand (suspendedJobUpdate).
func TestSameRefusalTextOfAnotherCause(t *testing.T) {
	const refusal = "spec.template: Invalid value: field is immutable"
	nodeSelector := func(tp *api.PodTemplateSpec) { tp.Spec.NodeSelector = map[string]string{"pool": "batch"} }
	if errs := suspendedJobUpdate(true, nodeSelector); len(errs) != 1 || errs[0].Field+": "+errs[0].Type.String()+": "+errs[0].Detail != refusal {
		t.Fatalf("oracle: %v, want %q", errs, refusal)
	}
	in := suspendedJob(t, true)
	in.Desired = []string{editedKind(t, in.Desired[0], "Job", func(u *unstructured.Unstructured) {
		_ = unstructured.SetNestedStringMap(u.Object, map[string]string{"pool": "batch"}, "spec", "template", "spec", "nodeSelector")
	})}
	ch, err := generator.Check(in, nil)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range ch.Findings(verdict.Gate{}) {
		if f.Resource.Kind == "Job" && f.Path == "spec.template.spec.nodeSelector" {
			found = true
			if f.Kind != verdict.KindImmutable || !f.Fails || !strings.Contains(f.Evidence, "ValidateJobUpdate): "+refusal) {
				t.Errorf("the nodeSelector added in Git: %s (fails %v): %s", f.Kind, f.Fails, f.Evidence)
			}
		}
	}
	if !found {
		t.Error("no finding at spec.template.spec.nodeSelector")
	}
}

// A suspended Job's containers' resources may change only where the server's feature gate
// MutablePodResourcesForSuspendedJobs is on: by default from v1.36, off in v1.35, absent before.
// check judged every --server-version with v1.37's gates: a resources change passed (exit 0)
// for v1.33-v1.35, whose server refuses it (probe19 P19-2: kapp v0.66.0 on kube-apiserver
// v1.37.2 started with both gates off, "field is immutable"). The oracle is the Job strategy
// under the gates Kubernetes' versioned gate data gives that version (emulation version).
func TestSuspendedJobResourcesByServerVersion(t *testing.T) {
	rules, _ := generatedRules(t, suspendedJob(t, false))
	cpu := func(tp *api.PodTemplateSpec) {
		tp.Spec.Containers[0].Resources.Requests = api.ResourceList{api.ResourceCPU: resource.MustParse("200m")}
	}
	for _, c := range []struct {
		server  string
		refused bool
	}{{"v1.35.0", true}, {"v1.33.1", true}, {"v1.36.3", false}, {"v1.37.2", false}} {
		t.Run(c.server, func(t *testing.T) {
			v := version.MustParse(c.server)
			// the server's gates set for the oracle alone: its subtest's cleanup restores them
			// before check runs
			t.Run("oracle", func(t *testing.T) {
				featuregatetesting.SetFeatureGateEmulationVersionDuringTest(t, utilfeature.DefaultFeatureGate, version.MajorMinor(v.Major(), v.Minor()))
				if errs := suspendedJobUpdate(false, cpu); len(errs) > 0 != c.refused {
					t.Fatalf("oracle at %s: %v, want refused %v", c.server, errs, c.refused)
				}
			})
			in := suspendedJob(t, false)
			in.ServerVersion = c.server
			in.Desired = []string{editedKind(t, in.Desired[0], "Job", func(u *unstructured.Unstructured) {
				firstContainer(u.Object["spec"].(map[string]any)["template"].(map[string]any))["resources"] = map[string]any{"requests": map[string]any{"cpu": "200m"}}
			})}
			ch, err := generator.Check(in, []string{rules})
			if err != nil {
				t.Fatal(err)
			}
			fails := false
			for _, f := range ch.Findings(verdict.Gate{}) {
				if f.Resource.Kind == "Job" && f.Fails {
					fails = fails || f.Kind == verdict.KindImmutable && strings.Contains(f.Evidence, "field is immutable")
				}
			}
			if fails != c.refused {
				t.Errorf("server %s: check fails %v, want %v (the server refuses: %v)", c.server, fails, c.refused, c.refused)
			}
		})
	}
}
