package classify

import (
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// What the create strategies' PrepareForCreate sets or clears is a default, with evidence naming
// the strategy, its package and the Kubernetes version; what they allocate or derive from the uid
// stays calculated, and a value the strategy would not produce is not explained by it (issue 26).
// The expected values are read from the strategies in k8s.io/kubernetes pkg/registry (v1.37.2),
// not from classify; the objects are the smallest that carry them.
func TestCreateStrategyDefaults(t *testing.T) {
	by := func(resource, pkg string) string {
		return "PrepareForCreate of " + resource + " (k8s.io/kubernetes " + kappconv.Kubernetes + " pkg/registry/" + pkg + ")"
	}
	const (
		job = "apiVersion: batch/v1\nkind: Job\nmetadata: {name: db, namespace: ns}\nspec:\n%s  template:\n" +
			"    metadata: {labels: {app: db%s}}\n    spec:\n      restartPolicy: Never\n      containers: [{name: m, image: busybox}]\n"
		uid      = "6c2bf1a0-8f5e-4b7e-9a51-3f0e0c1d2e3f"
		uidLabel = ", controller-uid: " + uid + ", batch.kubernetes.io/controller-uid: " + uid
		selector = "  selector: {matchLabels: {batch.kubernetes.io/controller-uid: " + uid + "}}\n"
		ds       = "apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: agent\n  namespace: ns\n%s" +
			"spec:\n  selector: {matchLabels: {app: agent}}\n  template:\n    metadata: {labels: {app: agent}}\n    spec: {containers: [{name: a, image: busybox}]}\n"
		podRes = "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns, labels: {app: p, tier: web}}\nspec:\n  resources: {%s}\n  containers: [{name: a, image: busybox}]\n"
		spread = "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns, labels: {app: p, tier: web}}\nspec:\n" +
			"  topologySpreadConstraints:\n  - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, matchLabelKeys: [tier], labelSelector: {matchLabels: {app: p}%s}}\n" +
			"  containers: [{name: a, image: busybox}]\n"
		sa  = "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: deployer, namespace: ns}\nsecrets: [{name: token%s}]\n"
		pvc = "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data, namespace: ns}\nspec:\n  accessModes: [ReadWriteOnce]\n" +
			"  resources: {requests: {storage: 1Gi}}\n  dataSourceRef: {kind: PersistentVolumeClaim, name: original}\n%s"
	)
	for _, tc := range []struct {
		name, desired, live, path string
		want                      Class
		evidence                  string // "" when the strategy must not be named
	}{
		{"a Namespace's kubernetes finalizer", "apiVersion: v1\nkind: Namespace\nmetadata: {name: team}\n",
			"apiVersion: v1\nkind: Namespace\nmetadata: {name: team}\nspec: {finalizers: [kubernetes]}\n",
			"spec", Defaulted, "set on create by " + by("namespaces", "core/namespace")},
		{"a Job's job-name label", sprintf(job, "", ""), sprintf(job, selector, ", job-name: db, batch.kubernetes.io/job-name: db"+uidLabel),
			"spec.template.metadata.labels.job-name", Defaulted, "set on create by " + by("jobs", "batch/job")},
		{"a Job's batch.kubernetes.io/job-name label", sprintf(job, "", ""), sprintf(job, selector, ", job-name: db, batch.kubernetes.io/job-name: db"+uidLabel),
			`spec.template.metadata.labels["batch.kubernetes.io/job-name"]`, Defaulted, "set on create by " + by("jobs", "batch/job")},
		{"a Job's controller-uid label, from the uid", sprintf(job, "", ""), sprintf(job, selector, ", job-name: db, batch.kubernetes.io/job-name: db"+uidLabel),
			`spec.template.metadata.labels["batch.kubernetes.io/controller-uid"]`, Calculated, ""},
		{"a Job's selector, from the uid", sprintf(job, "", ""), sprintf(job, selector, ", job-name: db, batch.kubernetes.io/job-name: db"+uidLabel),
			"spec.selector", Calculated, ""},
		{"a job-name label the strategy would not write", sprintf(job, "", ""), sprintf(job, selector, ", job-name: other, batch.kubernetes.io/job-name: db"+uidLabel),
			"spec.template.metadata.labels.job-name", Unknown, ""},
		{"a DaemonSet's first template generation", sprintf(ds, ""), sprintf(ds, "  annotations: {deprecated.daemonset.template.generation: \"1\"}\n"),
			`metadata.annotations["deprecated.daemonset.template.generation"]`, Defaulted, "set on create by " + by("daemonsets", "apps/daemonset")},
		{"a DaemonSet's template generation after updates", sprintf(ds, ""), sprintf(ds, "  annotations: {deprecated.daemonset.template.generation: \"3\"}\n"),
			`metadata.annotations["deprecated.daemonset.template.generation"]`, Calculated, ""},
		{"Pod-level requests from the Pod's limits", sprintf(podRes, "limits: {cpu: 500m}"), sprintf(podRes, "limits: {cpu: 500m}, requests: {cpu: 500m}"),
			"spec.resources.requests", Defaulted, "set on create by " + by("pods", "core/pod")},
		{"topology spread matchLabelKeys merged into the selector", sprintf(spread, ""), sprintf(spread, ", matchExpressions: [{key: tier, operator: In, values: [web]}]"),
			"spec.topologySpreadConstraints[topologyKey=zone,whenUnsatisfiable=DoNotSchedule].labelSelector.matchExpressions", Defaulted, "set on create by " + by("pods", "core/pod")},
		{"a ServiceAccount's secret reference cut to its name", sprintf(sa, ", namespace: ns"), sprintf(sa, ""),
			"secrets[name=token].namespace", Defaulted, "removed on create by " + by("serviceaccounts", "core/serviceaccount")},
		{"a PVC's dataSource from its dataSourceRef", sprintf(pvc, ""), sprintf(pvc, "  dataSource: {apiGroup: null, kind: PersistentVolumeClaim, name: original}\n"),
			"spec.dataSource", Defaulted, "set on create by " + by("persistentvolumeclaims", "core/persistentvolumeclaim")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, ok := classifyYAML(t, tc.desired, tc.live)[tc.path]
			if !ok {
				t.Fatalf("no finding at %s", tc.path)
			}
			if f.Class != tc.want || tc.evidence != "" && f.Evidence != tc.evidence || tc.evidence == "" && strings.Contains(f.Evidence, "on create by") {
				t.Errorf("%s: %s (%s), want %s (%s)", tc.path, f.Class, f.Evidence, tc.want, tc.evidence)
			}
		})
	}
}
