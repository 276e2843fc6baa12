package classify

import (
	"encoding/json"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/rebasegen/rebasegen/rulesets"
)

// TestServerVersionDefaults (issue 26): where the defaults of the API server's minor version
// differ from the linked version's, that version's default explains the live value, with evidence
// naming it, and the linked version's default there does not. The data is made up here (two
// differences a made-up v1.30.0 would have), so both directions are pinned whatever the generated
// rulesets/defaults hold.
func TestServerVersionDefaults(t *testing.T) {
	v130 := &rulesets.VersionDefaults{Version: "v1.30.0", Reference: "v1.37.2", Differences: []rulesets.DefaultDifference{
		{APIVersion: "apps/v1", Kind: "Deployment", Path: "spec.progressDeadlineSeconds", Value: float64(300), ReferenceValue: float64(600), Source: "defaulting and conversion of apps/v1 Deployment (k8s.io/kubernetes v1.30.0, pkg/apis/apps/v1)"},
		{APIVersion: "apps/v1", Kind: "Deployment", Path: "spec.template.spec.containers[*].terminationMessagePolicy", NotDefaulted: true, ReferenceValue: "File", Source: "defaulting and conversion of apps/v1 Deployment (k8s.io/kubernetes v1.30.0, pkg/apis/apps/v1)"},
		{APIVersion: "apps/v1", Kind: "Deployment", Path: "spec.minReadySeconds", Value: float64(5), ReferenceNotDefaulted: true, Source: "defaulting and conversion of apps/v1 Deployment (k8s.io/kubernetes v1.30.0, pkg/apis/apps/v1)"},
	}}
	const tmp = "spec.template.spec.containers[name=web].terminationMessagePolicy"
	for _, tc := range []struct {
		name, spec, path string
		version          *rulesets.VersionDefaults
		defaulted        bool
		evidence         string
	}{
		{"the linked version's default, linked server", "progressDeadlineSeconds: 600", "spec.progressDeadlineSeconds", nil, true, "(k8s.io/kubernetes v1.37.2)"},
		{"the linked version's default, a server that sets another", "progressDeadlineSeconds: 600", "spec.progressDeadlineSeconds", v130, false, ""},
		{"the server's own default", "progressDeadlineSeconds: 300", "spec.progressDeadlineSeconds", v130, true, "k8s.io/kubernetes v1.30.0, pkg/apis/apps/v1), the API server's minor version (rulesets/defaults/v1.30.yaml)"},
		{"the server's own default, linked server", "progressDeadlineSeconds: 300", "spec.progressDeadlineSeconds", nil, false, ""},
		{"a default the server does not set", "", tmp, v130, false, ""},
		{"a default only the server sets", "minReadySeconds: 5", "spec.minReadySeconds", v130, true, "k8s.io/kubernetes v1.30.0"},
		{"a default only the server sets, linked server", "minReadySeconds: 5", "spec.minReadySeconds", nil, false, ""},
		{"a field no difference names", "revisionHistoryLimit: 10", "spec.revisionHistoryLimit", v130, true, "(k8s.io/kubernetes v1.37.2)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			live := strings.Replace(deployment(tc.spec, ""), "        image: nginx\n", "        image: nginx\n        terminationMessagePolicy: File\n", 1)
			f, ok := classifyVersion(t, deployment("", ""), live, tc.version)[tc.path]
			if !ok {
				t.Fatalf("no finding at %s", tc.path)
			}
			if (f.Class == Defaulted) != tc.defaulted || tc.defaulted && !strings.Contains(f.Evidence, tc.evidence) {
				t.Errorf("%s: %s, evidence %q; want defaulted %v, evidence naming %q", tc.path, f.Class, f.Evidence, tc.defaulted, tc.evidence)
			}
		})
	}
}

// TestCreationTimestampEvidence (issue 26): the evidence for an embedded creationTimestamp: null
// is true of the version judged. The oracle for when servers stopped writing it is the linked
// k8s.io/apimachinery (v0.37.2): its ObjectMeta leaves a zero creationTimestamp out (omitzero,
// added in v0.34; v0.33's tag is omitempty alone, which keeps a struct).
func TestCreationTimestampEvidence(t *testing.T) {
	tmpl, err := json.Marshal(corev1.PodTemplateSpec{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(tmpl), "creationTimestamp") {
		t.Fatalf("the linked apimachinery writes an embedded zero creationTimestamp (%s): the evidence's v1.34 is wrong", tmpl)
	}
	live := strings.Replace(deployment("", ""), "metadata: {labels: {app: web}}", "metadata: {labels: {app: web}, creationTimestamp: null}", 1)
	if live == deployment("", "") {
		t.Fatal("no template metadata in the test Deployment")
	}
	const path = "spec.template.metadata.creationTimestamp"
	for _, tc := range []struct {
		version   string
		want, not string
	}{
		{"", "before Kubernetes v1.34 write", "this API server"},
		{"v1.33.0", "this API server (Kubernetes v1.33) writes it", "leaves it out"},
		{"v1.35.0", "this API server (Kubernetes v1.35) leaves it out", "writes it"},
	} {
		var v *rulesets.VersionDefaults
		if tc.version != "" {
			v = &rulesets.VersionDefaults{Version: tc.version, Reference: "v1.37.2"}
		}
		f, ok := classifyVersion(t, deployment("", ""), live, v)[path]
		if !ok {
			t.Fatalf("%s: no finding at %s", tc.version, path)
		}
		if f.Class != Calculated || !strings.Contains(f.Evidence, tc.want) || strings.Contains(f.Evidence, tc.not) || strings.Contains(f.Evidence, "v1.35 omits") {
			t.Errorf("server %q: %s (%s), want calculated, evidence saying %q", tc.version, f.Class, f.Evidence, tc.want)
		}
	}
}

// TestServerVersionStrategyDefaults (issue 26): where the server's minor version's create
// strategy sets a field otherwise than the linked one's (rulesets/defaults entries marked
// strategy), the server's decides, with evidence naming it; a map the manifest lacks is judged
// leaf by leaf. The data is made up (a v1.30.0 whose Namespace strategy adds no finalizer, and
// whose ServiceAccount strategy keeps a secret reference's namespace), so both directions are
// pinned whatever the generated data holds.
func TestServerVersionStrategyDefaults(t *testing.T) {
	const src = "PrepareForCreate of namespaces (k8s.io/kubernetes v1.30.0 pkg/registry/core/namespace)"
	v130 := &rulesets.VersionDefaults{Version: "v1.30.0", Reference: "v1.37.2", Differences: []rulesets.DefaultDifference{
		{APIVersion: "v1", Kind: "Namespace", Path: "spec.finalizers", Strategy: true, NotDefaulted: true, ReferenceValue: []any{"kubernetes"}, Source: src},
		{APIVersion: "v1", Kind: "Namespace", Path: "metadata.labels.team", Strategy: true, Value: "core", ReferenceNotDefaulted: true, Source: src},
		{APIVersion: "v1", Kind: "Namespace", Path: "spec.extra.a", Strategy: true, Value: "x", ReferenceNotDefaulted: true, Source: src},
		{APIVersion: "v1", Kind: "Namespace", Path: "spec.extra.b", Strategy: true, Value: "w", ReferenceNotDefaulted: true, Source: src},
	}}
	const ns = "apiVersion: v1\nkind: Namespace\nmetadata: {name: team%s}\n%s"
	for _, tc := range []struct {
		name, live, path string
		version          *rulesets.VersionDefaults
		defaulted        bool
		evidence         string
	}{
		{"the linked strategy's finalizer, linked server", sprintf(ns, "", "spec: {finalizers: [kubernetes]}\n"), "spec", nil, true, "set on create by PrepareForCreate of namespaces (k8s.io/kubernetes v1.37.2"},
		{"the linked strategy's finalizer, a server whose strategy adds none", sprintf(ns, "", "spec: {finalizers: [kubernetes]}\n"), "spec", v130, false, ""},
		{"a label only the server's strategy sets", sprintf(ns, ", labels: {team: core}", ""), "metadata.labels.team", v130, true, "set on create by " + src + ", the API server's minor version (rulesets/defaults/v1.30.yaml)"},
		{"another value there", sprintf(ns, ", labels: {team: other}", ""), "metadata.labels.team", v130, false, ""},
		{"a label only the server's strategy sets, linked server", sprintf(ns, ", labels: {team: core}", ""), "metadata.labels.team", nil, false, ""},
		{"a map whose every leaf the server's strategy sets", sprintf(ns, "", "spec: {extra: {a: x, b: w}}\n"), "spec", v130, true, "set on create by " + src},
		{"a map with a leaf no strategy sets", sprintf(ns, "", "spec: {extra: {a: x, b: w, c: z}}\n"), "spec", v130, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, ok := classifyVersion(t, sprintf(ns, "", ""), tc.live, tc.version)[tc.path]
			if !ok {
				t.Fatalf("no finding at %s", tc.path)
			}
			if (f.Class == Defaulted) != tc.defaulted || tc.defaulted && !strings.Contains(f.Evidence, tc.evidence) {
				t.Errorf("%s: %s, evidence %q; want defaulted %v, evidence naming %q", tc.path, f.Class, f.Evidence, tc.defaulted, tc.evidence)
			}
		})
	}
}
