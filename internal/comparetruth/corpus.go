// Package comparetruth is the corpus of the compare package and the API server's verdict on each
// case: a case creates an object on a real API server (as the controller's field manager would,
// by server-side apply or by create), lets other managers change it, reads it back, and asks the
// server, with a dry run of the same write (server-side apply with dryRun=All under the same
// field manager, or an update with dryRun), whether the write would change the object.
//
// hack/comparetruth records every case under fixtures/compare/ (make fixtures); compare's tests
// judge the recorded cases offline (make test), and the e2e test asks the server again (make e2e).
package comparetruth

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/rebasegen/rebasegen/internal/crddoc"
)

// Manager is the field manager of the controller whose writes are judged.
const Manager = "compare-ctrl"

// Mode is how the controller writes.
type Mode string

const (
	Apply  Mode = "apply"  // server-side apply under Manager, forced
	Update Mode = "update" // update (PUT) of the desired object, with the live resourceVersion
)

// Step is one write made before the judged one.
type Step struct {
	// Op: "apply" (server-side apply of Object), "create" (POST of Object), "patch" (a strategic
	// merge patch of Object onto the case's object, a JSON merge patch for a custom resource;
	// Subresource optional).
	Op          string         `json:"op"`
	Manager     string         `json:"manager"`
	Subresource string         `json:"subresource,omitempty"`
	Object      map[string]any `json:"object"`
}

// Case is one judged write.
type Case struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Mode        Mode   `json:"mode"`
	Steps       []Step `json:"steps"`
	// Desired is the object the judged write sends; a recorded case holds it, named, as a document
	// of its own.
	Desired map[string]any `json:"-"`
	// CRD: the case's object is a custom resource of the corpus CRD (fixtures/compare/crd.yaml).
	CRD bool `json:"crd,omitempty"`
}

// kind is one kind of the corpus: its object as the controller first writes it, and the
// mutations its cases make.
type kind struct {
	name    string // case name prefix
	cluster bool   // cluster-scoped: the object is named after the case
	object  string // YAML, without metadata.name and namespace
	// labels: the kind has the label cases. metadata.labels is the same field in every kind; what
	// differs from kind to kind is how the server takes a write of the whole object (admission,
	// allocated fields, an update it rejects, cluster scope, a custom resource), so they run on one
	// kind of each such treatment.
	labels bool
	// list is the path of a list of at least two items, and an item to add to it: the list cases,
	// on one kind of each list type and server treatment (a list of the same type in another kind
	// behaves as this one does).
	list []string
	item string
	// change changes a value the controller declares (besides labels).
	change func(map[string]any)
	// other is another controller's write to the live object (besides an annotation).
	other *Step
	crd   bool
}

func set(path []string, v any) func(map[string]any) {
	return func(o map[string]any) {
		if err := unstructured.SetNestedField(o, v, path...); err != nil {
			panic(err)
		}
	}
}

// setIn sets field to v in the first item of the list at path.
func setIn(path []string, field string, v any) func(map[string]any) {
	return func(o map[string]any) {
		items, _, _ := unstructured.NestedSlice(o, path...)
		items[0].(map[string]any)[field] = v
		if err := unstructured.SetNestedSlice(o, items, path...); err != nil {
			panic(err)
		}
	}
}

func obj(doc string) map[string]any {
	var m map[string]any
	if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
		panic(fmt.Sprintf("corpus object: %v\n%s", err, doc))
	}
	return m
}

const podSpec = `
      containers:
      - name: web
        image: nginx:1.27
        ports:
        - containerPort: 80
      - name: sidecar
        image: busybox:1.36
        command: [sleep, infinity]
`

func templated(apiVersion, kind, extra string) string {
	return "apiVersion: " + apiVersion + "\nkind: " + kind + "\nmetadata:\n  labels: {tier: a}\nspec:\n" + extra +
		"  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:" + podSpec
}

var containers = []string{"spec", "template", "spec", "containers"}

const extraContainer = "{name: extra, image: busybox:1.36, command: [sleep, infinity]}"

func kinds() []kind {
	scale := func(n int64) *Step {
		return &Step{Op: "patch", Manager: "kube-controller-manager", Subresource: "scale", Object: map[string]any{"spec": map[string]any{"replicas": n}}}
	}
	image := setIn(containers, "image", "nginx:1.28")
	// every type of Service has its own allocated fields; the label and list cases run on the first
	service := func(name, spec string) kind {
		return kind{name: name, object: "apiVersion: v1\nkind: Service\nmetadata:\n  labels: {tier: a}\nspec:\n" + spec +
			"  selector: {app: web}\n  ports:\n  - {name: http, port: 80, targetPort: 8080}\n  - {name: https, port: 443, targetPort: 8443}\n",
			change: setIn([]string{"spec", "ports"}, "port", int64(8080))}
	}
	clusterIP := service("service-clusterip", "  type: ClusterIP\n")
	clusterIP.labels, clusterIP.list, clusterIP.item = true, []string{"spec", "ports"}, "{name: metrics, port: 9090}"
	return []kind{
		{name: "pod", labels: true, object: "apiVersion: v1\nkind: Pod\nmetadata:\n  labels: {tier: a}\nspec:\n  restartPolicy: Always" + strings.ReplaceAll(podSpec, "\n      ", "\n  "),
			list: []string{"spec", "containers"}, item: extraContainer, change: setIn([]string{"spec", "containers"}, "image", "nginx:1.28")},
		{name: "deployment", labels: true, object: templated("apps/v1", "Deployment", "  replicas: 1\n"), list: containers, item: extraContainer, change: image, other: scale(3)},
		{name: "statefulset", object: templated("apps/v1", "StatefulSet", "  replicas: 1\n  serviceName: web\n  volumeClaimTemplates:\n"+
			"  - metadata: {name: data}\n    spec:\n      accessModes: [ReadWriteOnce]\n      resources: {requests: {storage: 1Gi}}\n"),
			change: image, other: scale(2)},
		{name: "daemonset", labels: true, object: templated("apps/v1", "DaemonSet", ""), list: containers, item: extraContainer, change: image},
		{name: "job", labels: true, object: strings.Replace(strings.Replace(templated("batch/v1", "Job", "  backoffLimit: 2\n"),
			"  selector:\n    matchLabels: {app: web}\n", "", 1), "    spec:\n", "    spec:\n      restartPolicy: Never\n", 1),
			list: containers, item: extraContainer, change: set([]string{"spec", "backoffLimit"}, int64(3))},
		{name: "cronjob", object: "apiVersion: batch/v1\nkind: CronJob\nmetadata:\n  labels: {tier: a}\nspec:\n  schedule: \"*/5 * * * *\"\n  jobTemplate:\n    spec:\n      template:\n        spec:\n          restartPolicy: Never" +
			strings.ReplaceAll(podSpec, "\n      ", "\n          "),
			change: set([]string{"spec", "schedule"}, "*/10 * * * *")},
		clusterIP,
		service("service-headless", "  clusterIP: None\n"),
		service("service-nodeport", "  type: NodePort\n"),
		service("service-loadbalancer", "  type: LoadBalancer\n"),
		{name: "service-externalname", object: "apiVersion: v1\nkind: Service\nmetadata:\n  labels: {tier: a}\nspec:\n  type: ExternalName\n  externalName: example.com\n",
			change: set([]string{"spec", "externalName"}, "example.org")},
		{name: "configmap", labels: true, object: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  labels: {tier: a}\ndata: {a: \"1\", b: \"2\"}\n", change: set([]string{"data", "a"}, "9")},
		{name: "secret", object: "apiVersion: v1\nkind: Secret\nmetadata:\n  labels: {tier: a}\ntype: Opaque\ndata: {password: c2VjcmV0LTE=, token: dG9rZW4tMQ==}\n",
			change: set([]string{"data", "password"}, "c2VjcmV0LTI=")},
		{name: "serviceaccount", object: "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  labels: {tier: a}\nautomountServiceAccountToken: false\n",
			change: set([]string{"automountServiceAccountToken"}, true)},
		{name: "role", object: "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  labels: {tier: a}\nrules:\n- {apiGroups: [\"\"], resources: [configmaps], verbs: [get]}\n- {apiGroups: [apps], resources: [deployments], verbs: [get, list]}\n",
			list: []string{"rules"}, item: "{apiGroups: [\"\"], resources: [secrets], verbs: [get]}", change: setIn([]string{"rules"}, "verbs", []any{"get", "watch"})},
		{name: "rolebinding", object: "apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  labels: {tier: a}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: reader}\nsubjects:\n- {kind: ServiceAccount, name: a}\n- {kind: ServiceAccount, name: b}\n",
			change: setIn([]string{"subjects"}, "name", "z")},
		{name: "clusterrole", cluster: true, labels: true, object: "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  labels: {tier: a}\nrules:\n- {apiGroups: [\"\"], resources: [configmaps], verbs: [get]}\n- {apiGroups: [apps], resources: [deployments], verbs: [get]}\n",
			change: setIn([]string{"rules"}, "verbs", []any{"list"})},
		{name: "clusterrolebinding", cluster: true, object: "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  labels: {tier: a}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}\nsubjects:\n- {kind: ServiceAccount, name: a, namespace: default}\n- {kind: ServiceAccount, name: b, namespace: default}\n",
			change: setIn([]string{"subjects"}, "name", "z")},
		{name: "pdb", object: "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  labels: {tier: a}\nspec:\n  minAvailable: 1\n  selector:\n    matchLabels: {app: web}\n",
			change: set([]string{"spec", "minAvailable"}, int64(2))},
		{name: "hpa", object: "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  labels: {tier: a}\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  minReplicas: 1\n  maxReplicas: 5\n  metrics:\n" +
			"  - type: Resource\n    resource: {name: cpu, target: {type: Utilization, averageUtilization: 80}}\n  - type: Resource\n    resource: {name: memory, target: {type: Utilization, averageUtilization: 80}}\n",
			change: set([]string{"spec", "maxReplicas"}, int64(6))},
		{name: "ingress", object: "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  labels: {tier: a}\nspec:\n  rules:\n" +
			"  - host: a.example.com\n    http:\n      paths:\n      - {path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}\n" +
			"  - host: b.example.com\n    http:\n      paths:\n      - {path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}\n",
			list: []string{"spec", "rules"}, item: "{host: c.example.com, http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}]}}",
			change: setIn([]string{"spec", "rules"}, "host", "z.example.com")},
		{name: "networkpolicy", object: "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata:\n  labels: {tier: a}\nspec:\n  podSelector: {matchLabels: {app: web}}\n  ingress:\n  - ports: [{port: 80}]\n  - ports: [{port: 443}]\n",
			list: []string{"spec", "ingress"}, item: "{ports: [{port: 8080}]}", change: set([]string{"spec", "policyTypes"}, []any{"Ingress", "Egress"})},
		{name: "pvc", labels: true, object: "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  labels: {tier: a}\nspec:\n  accessModes: [ReadWriteOnce]\n  resources: {requests: {storage: 1Gi}}\n",
			change: set([]string{"spec", "resources", "requests", "storage"}, "2Gi")},
		{name: "widget", crd: true, labels: true, object: "apiVersion: compare.example.com/v1\nkind: Widget\nmetadata:\n  labels: {tier: a}\nspec:\n  size: 3\n  items:\n  - {name: a, weight: 1}\n  - {name: b, weight: 2}\n",
			list: []string{"spec", "items"}, item: "{name: c, weight: 3}", change: set([]string{"spec", "size"}, int64(4))},
		{name: "mutatingwebhook", cluster: true, object: "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingWebhookConfiguration\nmetadata:\n  labels: {tier: a}\nwebhooks:\n" +
			webhook("a") + webhook("b"), change: setIn([]string{"webhooks"}, "timeoutSeconds", int64(5)),
			other: &Step{Op: "patch", Manager: "cainjector", Object: obj("webhooks: [{name: a.compare.example.com, clientConfig: {caBundle: Y2VydA==}}]")}},
		{name: "validatingwebhook", cluster: true, object: "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata:\n  labels: {tier: a}\nwebhooks:\n" +
			webhook("a") + webhook("b"), change: setIn([]string{"webhooks"}, "timeoutSeconds", int64(5))},
	}
}

func webhookItem(n string) string {
	return "{name: " + n + ".compare.example.com, admissionReviewVersions: [v1], sideEffects: None, failurePolicy: Ignore, clientConfig: {url: \"https://127.0.0.1:1/" + n + "\"}, " +
		"rules: [{apiGroups: [compare.invalid], apiVersions: [v1], operations: [CREATE], resources: [nothings]}]}"
}

func webhook(n string) string { return "- " + webhookItem(n) + "\n" }

// CRDDoc is the corpus CRD: structural schema defaults, a list-map keyed by name.
var CRDDoc = crddoc.Namespaced("compare.example.com", "Widget", `type: object
properties:
  size: {type: integer, default: 1}
  mode: {type: string, default: fast}
  items: `+crddoc.KeyedByName("weight: {type: integer, default: 10}")+"\n")

// Cases is the corpus, in a stable order.
func Cases() []Case {
	var out []Case
	for _, k := range kinds() {
		for _, mode := range []Mode{Apply, Update} {
			out = append(out, k.cases(mode)...)
		}
	}
	return out
}

func (k kind) cases(mode Mode) []Case {
	base := obj(k.object)
	first := Step{Op: "apply", Manager: Manager, Object: base}
	if mode == Update {
		first.Op = "create"
	}
	c := func(variant, description string, desired map[string]any, extra ...Step) Case {
		return Case{Name: k.name + "-" + variant + "-" + string(mode), Description: description, Mode: mode,
			Steps: append([]Step{first}, extra...), Desired: desired, CRD: k.crd}
	}
	mutated := func(f func(map[string]any)) map[string]any {
		d := deepCopy(base)
		f(d)
		return d
	}
	var out []Case
	out = append(out, c("noop", "the controller writes what it wrote", deepCopy(base)))
	if k.labels {
		out = append(out, c("label-set", "a label added", mutated(set([]string{"metadata", "labels", "added"}, "yes"))))
		out = append(out, c("label-change", "a label's value changed", mutated(set([]string{"metadata", "labels", "tier"}, "b"))))
		out = append(out, c("label-remove", "a label the controller wrote no longer declared", mutated(func(o map[string]any) {
			unstructured.RemoveNestedField(o, "metadata", "labels", "tier")
		})))
	}
	if k.change != nil {
		out = append(out, c("change", "a value of the object's own fields changed", mutated(k.change)))
	}
	if k.list != nil {
		out = append(out, c("list-add", "an item added to "+strings.Join(k.list, "."), mutated(func(o map[string]any) {
			items, _, _ := unstructured.NestedSlice(o, k.list...)
			items = append(items, obj(k.item))
			_ = unstructured.SetNestedSlice(o, items, k.list...)
		})))
		out = append(out, c("list-remove", "the last item of "+strings.Join(k.list, ".")+" removed", mutated(func(o map[string]any) {
			items, _, _ := unstructured.NestedSlice(o, k.list...)
			_ = unstructured.SetNestedSlice(o, items[:len(items)-1], k.list...)
		})))
		out = append(out, c("list-reorder", "the items of "+strings.Join(k.list, ".")+" reversed", mutated(func(o map[string]any) {
			items, _, _ := unstructured.NestedSlice(o, k.list...)
			slices.Reverse(items)
			_ = unstructured.SetNestedSlice(o, items, k.list...)
		})))
	}
	others := []Step{{Op: "patch", Manager: "other-controller", Object: obj(`metadata: {annotations: {example.com/checksum: "5d41402a"}}`)}}
	description := "the controller writes what it wrote; another controller added an annotation"
	if k.other != nil {
		others = append(others, *k.other)
		description += " and wrote " + strings.TrimSpace(yamlText(k.other.Object))
		if k.other.Subresource != "" {
			description += " through " + k.other.Subresource
		}
	}
	out = append(out, c("other-owned", description, deepCopy(base), others...))
	return out
}

func yamlText(m map[string]any) string {
	b, _ := yaml.Marshal(m)
	return strings.ReplaceAll(string(b), "\n", " ")
}

func deepCopy(m map[string]any) map[string]any {
	return (&unstructured.Unstructured{Object: m}).DeepCopy().Object
}
