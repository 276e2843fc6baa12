package classify

import (
	"fmt"
	"strings"
	"testing"
)

// TestPrecedence pins the order in which classify weighs its explanations. Every row is one field
// that two explanations claim; the expected class and owner are written here from the order the
// design states (adoption, then a managedFields owner that is not an applier, a person's tool only
// when defaulting does not produce the value, a controller only for the value kapp last applied; then canonical form and the server's defaulting,
// calculated fields, autoscalers, filled-in and injected knowledge, admission; a declared value
// nothing else explains is drift, an undeclared one kapp last applied a removal made in Git), not read from the code. The objects are hand-built, the
// smallest that carry both explanations.
func TestPrecedence(t *testing.T) {
	const kapp = `{f:metadata: {f:labels: {.: {}, f:app: {}}}}` // kapp's entry owning what each manifest declares besides
	for _, tc := range []struct {
		name, competing string
		desired, live   string
		path            string
		want, owner     string
	}{
		// Adoption: another tool's bookkeeping kapp drops once.
		{"adoption over a controller owner", "known Helm label vs the manager owning it",
			configMap("", ""), configMap(`labels: {app: web, helm.sh/chart: web-1}`, mf("kapp", "", kapp)+mf("shop-operator", "", `{f:metadata: {f:labels: {f:helm.sh/chart: {}}}}`)),
			`metadata.labels["helm.sh/chart"]`, "adoption", "Helm"},
		{"adoption by an earlier applier", "a label only helm owns vs unknown",
			configMap("", ""), configMap(`labels: {app: web, team: a}`, mf("kapp", "", kapp)+mf("helm", "", `{f:metadata: {f:labels: {f:team: {}}}}`)),
			"metadata.labels.team", "adoption", "helm"},
		{"a controller's label is not adoption", "a label a controller owns vs adoption",
			configMap("", ""), configMap(`labels: {app: web, team: a}`, mf("kapp", "", kapp)+mf("shop-operator", "", `{f:metadata: {f:labels: {f:team: {}}}}`)),
			"metadata.labels.team", "controller", "shop-operator"},

		// Owners against the server's defaulting.
		{"controller owner over a default", "progressDeadlineSeconds: 600 is Deployment's default, and an operator owns it",
			deployment("", ""), deployment("progressDeadlineSeconds: 600", mf("kapp", "", deployKapp)+mf("shop-operator", "", `{f:spec: {f:progressDeadlineSeconds: {}}}`)),
			"spec.progressDeadlineSeconds", "controller", "shop-operator"},
		{"default over a person's tool", "kubectl edit owns a value defaulting produces",
			deployment("", ""), deployment("progressDeadlineSeconds: 600", mf("kapp", "", deployKapp)+mf("kubectl-edit", "", `{f:spec: {f:progressDeadlineSeconds: {}}}`)),
			"spec.progressDeadlineSeconds", "defaulted", ""},
		{"a person's tool over defaulting that does not produce the value", "kubectl edit owns 900, the default is 600",
			deployment("", ""), deployment("progressDeadlineSeconds: 900", mf("kapp", "", deployKapp)+mf("kubectl-edit", "", `{f:spec: {f:progressDeadlineSeconds: {}}}`)),
			"spec.progressDeadlineSeconds", "drift", "kubectl-edit"},
		{"controller owner over canonical form", "1000m and 1 are the same quantity, and an autoscaler owns it",
			deployment("", "", "cpu: 1000m"), deployment("", mf("kapp", "", deployKapp)+mf("vpa-updater", "", `{f:spec: {f:template: {f:spec: {f:containers: {'k:{"name":"web"}': {f:resources: {f:requests: {f:cpu: {}}}}}}}}}`), "cpu: \"1\""),
			`spec.template.spec.containers[name=web].resources.requests.cpu`, "controller", "vpa-updater"},
		{"canonical form over drift", "1000m and 1 are the same quantity; only the applier owns it",
			deployment("", "", "cpu: 1000m"), deployment("", mf("kapp", "", deployKapp), "cpu: \"1\""),
			`spec.template.spec.containers[name=web].resources.requests.cpu`, "defaulted", ""},

		// Owners against declared values.
		{"controller owner over drift", "a declared value a controller rewrote",
			configMap("", "data: {a: \"1\"}"), configMap(`labels: {app: web}`, mf("kapp", "", kapp)+mf("shop-operator", "", `{f:data: {f:a: {}}}`), "data: {a: \"2\"}"),
			"data.a", "controller", "shop-operator"},
		{"drift when only the applier owns it", "a declared value the applier owns",
			configMap("", "data: {a: \"1\"}"), configMap(`labels: {app: web}`, mf("kapp", "", `{f:data: {f:a: {}}, f:metadata: {f:labels: {.: {}, f:app: {}}}}`), "data: {a: \"2\"}"),
			"data.a", "drift", ""},
		{"kapp's original over the ownership share", "kapp applied it (original + entry); another manager rewrote the one declared key",
			configMap("", "", "data: {a: \"1\"}"), configMap(`labels: {app: web}`+sentData(`{"a":"1"}`), mf("kapp", "", kapp)+mf("shop-cli", "", `{f:data: {f:a: {}, f:b.c: {}}}`), "data: {a: \"2\", b.c: \"3\"}"),
			"data.a", "controller", "shop-cli"},
		{"a key with dots the rewriting manager added", "kapp applied it; the manager owning every declared key added this one",
			configMap("", "", "data: {a: \"1\"}"), configMap(`labels: {app: web}`+sentData(`{"a":"1"}`), mf("kapp", "", kapp)+mf("shop-cli", "", `{f:data: {f:a: {}, f:b.c: {}}}`), "data: {a: \"2\", b.c: \"3\"}"),
			`data["b.c"]`, "controller", "shop-cli"},
		{"an earlier applier that left kapp's values", "another manager owns every declared key, with the values kapp applied; Git changed one",
			configMap("", "", "data: {a: \"1\", b: \"2\"}"), configMap(`labels: {app: web}`+sentData(`{"a":"1","b":"1"}`), mf("kapp", "", kapp)+mf("shop-cli", "", `{f:data: {f:a: {}, f:b: {}}}`), "data: {a: \"1\", b: \"1\"}"),
			"data.b", "pending", ""},
		{"a removed field is nobody's", "a declared value gone from live that a stale entry names",
			configMap("", "data: {a: \"1\", b: \"1\"}"), configMap(`labels: {app: web}`, mf("kapp", "", kapp)+mf("shop-operator", "", `{f:data: {f:a: {}}}`), "data: {b: \"1\"}"),
			"data.a", "drift", ""},

		// Three ways: the manifest, what kapp last applied (kapp.k14s.io/original), the live object.
		{"a change made in Git over drift", "the applier owns the live value, which is what kapp last applied",
			configMap("", "data: {a: \"2\"}"), configMap(`labels: {app: web}`+sentData(`{"a":"1"}`), mf("kapp", "", `{f:data: {f:a: {}}, f:metadata: {f:labels: {.: {}, f:app: {}}}}`), "data: {a: \"1\"}"),
			"data.a", "pending", ""},
		{"a value added in Git over drift", "a declared key kapp never applied, absent from live",
			configMap("", "data: {a: \"1\", b: \"1\"}"), configMap(`labels: {app: web}`+sentData(`{"a":"1"}`), mf("kapp", "", `{f:data: {f:a: {}}, f:metadata: {f:labels: {.: {}, f:app: {}}}}`), "data: {a: \"1\"}"),
			"data.b", "pending", ""},
		{"a person's tool over a change made in Git", "kubectl edit changed what kapp last applied, and Git changed it too",
			configMap("", "data: {a: \"2\"}"), configMap(`labels: {app: web}`+sentData(`{"a":"1"}`), mf("kapp", "", kapp)+mf("kubectl-edit", "", `{f:data: {f:a: {}}}`), "data: {a: \"3\"}"),
			"data.a", "drift", "kubectl-edit"},
		{"a change made in Git over a person's tool that left kapp's value", "kubectl edit owns the value kapp last applied",
			configMap("", "data: {a: \"2\"}"), configMap(`labels: {app: web}`+sentData(`{"a":"1"}`), mf("kapp", "", kapp)+mf("kubectl-edit", "", `{f:data: {f:a: {}}}`), "data: {a: \"1\"}"),
			"data.a", "pending", ""},
		// the owner's exemption is for the value kapp applied: a rule handing the field to it would
		// keep Git's value from ever being applied (probe7 D4), the owner named all the same
		{"a change made in Git over a controller owner", "an operator owns the value kapp last applied; Git changed it",
			configMap("", "data: {a: \"2\"}"), configMap(`labels: {app: web}`+sentData(`{"a":"1"}`), mf("kapp", "", kapp)+mf("shop-operator", "", `{f:data: {f:a: {}}}`), "data: {a: \"1\"}"),
			"data.a", "pending", "shop-operator"},
		{"a change made in Git over a controller's rewrite", "an operator rewrote the value kapp last applied; Git changed it too",
			configMap("", "data: {a: \"3\"}"), configMap(`labels: {app: web}`+sentData(`{"a":"1"}`), mf("kapp", "", kapp)+mf("shop-operator", "", `{f:data: {f:a: {}}}`), "data: {a: \"2\"}"),
			"data.a", "pending", "shop-operator"},
		{"drift, not Git, when the live value is not what kapp applied", "the manifest is what kapp last applied; only the applier owns the field",
			configMap("", "data: {a: \"1\"}"), configMap(`labels: {app: web}`+sentData(`{"a":"1"}`), mf("kapp", "", `{f:data: {f:a: {}}, f:metadata: {f:labels: {.: {}, f:app: {}}}}`), "data: {a: \"2\"}"),
			"data.a", "drift", ""},
		{"a removal made in Git over unknown", "a key kapp last applied, which the manifest no longer declares",
			configMap("", "data: {a: \"1\"}"), configMap(`labels: {app: web}`+sentData(`{"a":"1","b":"2"}`), mf("kapp", "", `{f:data: {f:a: {}, f:b: {}}, f:metadata: {f:labels: {.: {}, f:app: {}}}}`), "data: {a: \"1\", b: \"2\"}"),
			"data.b", "pending", ""},
		{"admission, not a removal, when kapp never applied it", "a key neither the manifest nor kapp's last apply holds",
			configMap("", "data: {a: \"1\"}"), configMap(`labels: {app: web}`+sentData(`{"a":"1"}`), mf("kapp", "", `{f:data: {f:a: {}, f:b: {}}, f:metadata: {f:labels: {.: {}, f:app: {}}}}`), "data: {a: \"1\", b: \"2\"}"),
			"data.b", "admission", "a mutating webhook or admission plugin"},
		{"controller owner over a removal made in Git", "an operator owns a key kapp last applied (a rule copied it from the cluster)",
			configMap("", "data: {a: \"1\"}"), configMap(`labels: {app: web}`+sentData(`{"a":"1","b":"2"}`), mf("kapp", "", kapp)+mf("shop-operator", "", `{f:data: {f:b: {}}}`), "data: {a: \"1\", b: \"2\"}"),
			"data.b", "controller", "shop-operator"},
		{"default over a removal made in Git", "a default kapp last applied (a rule copied it from the cluster)",
			deployment("", ""), deployment("progressDeadlineSeconds: 600", mf("kapp", "", deployKapp), `annotations: {kapp.k14s.io/original: '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"ns"},"spec":{"progressDeadlineSeconds":600}}'}`),
			"spec.progressDeadlineSeconds", "defaulted", ""},
		{"default over a change made in Git", "an empty map the server drops, which kapp never applied",
			configMap("", "data: {}"), configMap(`labels: {app: web}`+sentData(`{}`), mf("kapp", "", kapp)),
			"data", "defaulted", ""},

		// Autoscalers.
		{"the scale owner over the autoscaler", "the HPA targets it and kube-controller-manager owns replicas through /scale",
			deployment("", "") + hpa, deployment("replicas: 4", mf("kapp", "", deployKapp)+mf("kube-controller-manager", "scale", `{f:spec: {f:replicas: {}}}`)),
			"spec.replicas", "controller", "kube-controller-manager"},
		{"default over the autoscaler", "replicas: 1 is the default, and the HPA targets it",
			deployment("", "") + hpa, deployment("replicas: 1", mf("kapp", "", deployKapp)),
			"spec.replicas", "defaulted", ""},
		{"the autoscaler over drift", "declared replicas the applier owns, and the HPA targets it",
			deployment("replicas: 2", "") + hpa, deployment("replicas: 4", mf("kapp", "", `{f:spec: {f:replicas: {}}}`)),
			"spec.replicas", "controller", "horizontal-pod-autoscaler"},
		{"drift without the autoscaler", "declared replicas the applier owns",
			deployment("replicas: 2", ""), deployment("replicas: 4", mf("kapp", "", `{f:spec: {f:replicas: {}}}`)),
			"spec.replicas", "drift", ""},

		// Knowledge against admission: the applier's write, not sent, not defaulted.
		{"calculated over admission", "a Service's clusterIP, added during the applier's create",
			service(""), service("clusterIP: 10.96.0.10"),
			"spec.clusterIP", "calculated", ""},
		{"filled over admission", "the Deployment controller's revision annotation, no owner",
			deployment("", ""), deployment("", mf("kapp", "", deployKapp), `annotations: {deployment.kubernetes.io/revision: "1"}`),
			`metadata.annotations["deployment.kubernetes.io/revision"]`, "controller", "kube-controller-manager"},
		{"controller owner over filled", "the revision annotation, owned by another manager",
			deployment("", ""), deployment("", mf("kapp", "", deployKapp)+mf("rollout-operator", "", `{f:metadata: {f:annotations: {f:deployment.kubernetes.io/revision: {}}}}`), `annotations: {deployment.kubernetes.io/revision: "1"}`),
			`metadata.annotations["deployment.kubernetes.io/revision"]`, "controller", "rollout-operator"},
		{"injected over admission", "Istio's sidecar, no owner",
			deployment("", ""), deployment("", mf("kapp", "", deployKapp), "- {name: istio-proxy, image: proxyv2}"),
			`spec.template.spec.containers[name=istio-proxy]`, "controller", "istio-sidecar-injector"},
		{"controller owner over injected", "Istio's sidecar, owned by a manager",
			deployment("", ""), deployment("", mf("kapp", "", deployKapp)+mf("pilot", "", `{f:spec: {f:template: {f:spec: {f:containers: {'k:{"name":"istio-proxy"}': {.: {}, f:image: {}, f:name: {}}}}}}}`), "- {name: istio-proxy, image: proxyv2}"),
			`spec.template.spec.containers[name=istio-proxy]`, "controller", "pilot"},
		{"admission plugin over unknown", "a Pod's priority, added during the applier's create",
			pod(""), pod("priority: 0", mf("kapp", "", `{f:spec: {f:containers: {'k:{"name":"web"}': {.: {}, f:image: {}, f:name: {}}}}}`)),
			"spec.priority", "admission", "the Priority admission plugin"},
		{"admission plugin knowledge without managedFields", "a Pod's priority, exported without managedFields",
			pod(""), pod("priority: 0"),
			"spec.priority", "admission", "the Priority admission plugin"},
		{"unknown without an applier", "a Pod field no plugin is known to add, no managedFields",
			pod(""), pod("hostname: h"),
			"spec.hostname", "unknown", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := classifyYAML(t, tc.desired, tc.live)
			f, ok := got[tc.path]
			if !ok {
				var paths []string
				for p := range got {
					paths = append(paths, p)
				}
				t.Fatalf("no finding at %s; findings: %v", tc.path, paths)
			}
			if string(f.Class) != tc.want || f.Owner != tc.owner {
				t.Errorf("%s (%s): %s owner %q, want %s owner %q; evidence: %s", tc.path, tc.competing, f.Class, f.Owner, tc.want, tc.owner, f.Evidence)
			}
		})
	}
}

// mf is one managedFields entry (Update, in the same second as the others).
func mf(manager, subresource, fields string) string {
	sub := ""
	if subresource != "" {
		sub = ", subresource: " + subresource
	}
	return indent(indent(fmt.Sprintf(`- {manager: %s, operation: Update%s, apiVersion: v1, time: "2026-11-22T04:41:10Z", fieldsType: FieldsV1, fieldsV1: %s}`, manager, sub, fields)))
}

// configMap: metadata lines (labels, annotations) then managedFields, then the rest at the top.
func configMap(meta, managed string, rest ...string) string {
	return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: ns\n" + opt("  ", meta) + opt("  managedFields:\n", strings.TrimSuffix(managed, "\n")) + strings.Join(rest, "\n") + "\n"
}

func opt(prefix, s string) string {
	if s == "" {
		return ""
	}
	return prefix + s + "\n"
}

// deployKapp: kapp owning the declared fields of deployment().
const deployKapp = `{f:spec: {f:selector: {}, f:template: {f:metadata: {f:labels: {.: {}, f:app: {}}}, f:spec: {f:containers: {'k:{"name":"web"}': {.: {}, f:image: {}, f:name: {}}}}}}}`

// deployment: a Deployment with spec lines (spec), managedFields, and optionally (by what each
// starts with) metadata annotations, the web container's cpu request, or a second container.
func deployment(spec, managed string, extra ...string) string {
	var ann, cpu, container string
	for _, e := range extra {
		switch {
		case strings.HasPrefix(e, "annotations:"):
			ann = e
		case strings.HasPrefix(e, "cpu:"):
			cpu = e
		case strings.HasPrefix(e, "- "):
			container = e
		}
	}
	s := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: ns\n" + opt("  ", ann) +
		opt("  managedFields:\n", strings.TrimSuffix(managed, "\n")) +
		"spec:\n" + opt("  ", spec) +
		"  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers:\n      - name: web\n        image: nginx\n"
	if cpu != "" {
		s += "        resources: {requests: {" + cpu + "}}\n"
	}
	return s + opt("      ", container)
}

// hpa targets deployment() (a second document of the desired file).
const hpa = "---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: web, namespace: ns}\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  minReplicas: 2\n  maxReplicas: 5\n"

func service(spec string) string {
	managed := "  managedFields:\n" + mf("kapp", "", `{f:spec: {f:ports: {'k:{"port":80,"protocol":"TCP"}': {.: {}, f:port: {}}}, f:selector: {}}}`)
	if spec == "" {
		managed = ""
	}
	return "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  namespace: ns\n" + managed + "spec:\n" + opt("  ", spec) + "  selector: {app: web}\n  ports: [{port: 80}]\n"
}

func pod(spec string, managed ...string) string {
	m := ""
	if len(managed) > 0 {
		m = "  managedFields:\n" + strings.TrimSuffix(managed[0], "\n") + "\n"
	}
	return "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  namespace: ns\n" + m + "spec:\n" + opt("  ", spec) + "  containers: [{name: web, image: nginx}]\n"
}

// sentData: kapp.k14s.io/original for configMap() with data, for the meta argument after labels.
// sentData("{}") holds no data.
func sentData(data string) string {
	if data == "{}" {
		return "\n  annotations: {kapp.k14s.io/original: '{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c\",\"namespace\":\"ns\"}}'}"
	}
	return "\n  annotations: {kapp.k14s.io/original: '{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c\",\"namespace\":\"ns\"},\"data\":" + data + "}'}"
}

// A declared value that differs with no kapp.k14s.io/original (a first deploy, an object kapp
// takes over) is drift, saying that a change made in Git cannot be told apart (issue 24 item 2).
func TestDriftWithoutOriginalSaysSo(t *testing.T) {
	owned := mf("kapp", "", `{f:data: {f:a: {}}, f:metadata: {f:labels: {.: {}, f:app: {}}}}`)
	for _, sent := range []string{"", sentData(`{"a":"1"}`)} {
		f := classifyYAML(t, configMap("", "data: {a: \"1\"}"), configMap(`labels: {app: web}`+sent, owned, "data: {a: \"3\"}"))["data.a"]
		says := strings.Contains(f.Evidence, "no kapp.k14s.io/original (a first deploy, or an object kapp takes over)")
		if f.Class != Drift || says != (sent == "") {
			t.Errorf("original %q: %s, evidence %q; want drift, saying whether the original is missing", sent, f.Class, f.Evidence)
		}
	}
}

// A field the manifest no longer declares, which managedFields credit to the applier, with no
// kapp.k14s.io/original (kapp.k14s.io/disable-original): a removal made in Git cannot be told
// from a field added during admission (older servers credited the requester), so it is unknown,
// never ruled. It was admission, and generate wrote a [new, existing] copy that hid the removal.
// With the original, or with no entry owning the field (the server records the applier's fields
// before admission), admission stands.
func TestRemovalWithoutOriginalIsNotAdmission(t *testing.T) {
	kappOwnsB := mf("kapp", "", `{f:data: {f:a: {}, f:b: {}}, f:metadata: {f:labels: {.: {}, f:app: {}}}}`)
	kappOwnsA := mf("kapp", "", `{f:data: {f:a: {}}, f:metadata: {f:labels: {.: {}, f:app: {}}}}`)
	desired := configMap("", "data: {a: \"1\"}")
	for _, tc := range []struct {
		name, sent, managed string
		want                Class
	}{
		{"applier credited, no original", "", kappOwnsB, Unknown},
		{"applier credited, the original lacks it", sentData(`{"a":"1"}`), kappOwnsB, Admission},
		{"no entry owns it, no original", "", kappOwnsA, Admission},
	} {
		f := classifyYAML(t, desired, configMap(`labels: {app: web}`+tc.sent, tc.managed, "data: {a: \"1\", b: \"2\"}"))["data.b"]
		if f.Class != tc.want {
			t.Errorf("%s: %s (%s), want %s", tc.name, f.Class, f.Evidence, tc.want)
		}
		if tc.want == Unknown && !strings.Contains(f.Evidence, "cannot be told from one added during admission") {
			t.Errorf("%s: evidence %q does not say why", tc.name, f.Evidence)
		}
	}
}
