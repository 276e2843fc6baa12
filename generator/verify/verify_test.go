package verify

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"

	ctlapp "carvel.dev/kapp/pkg/kapp/app"
	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	ctldiff "carvel.dev/kapp/pkg/kapp/diff"
	"carvel.dev/kapp/pkg/kapp/logger"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"carvel.dev/kapp/pkg/kapp/yttresmod"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/rebasegen/rebasegen/internal/kappglobal"
	"github.com/rebasegen/rebasegen/internal/kappprep"
)

// appLabel is the kind of value kapp puts in kapp.k14s.io/app.
const appLabel = "1736502011542133092"

const deploymentYAML = `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx:1.27
        ports:
        - containerPort: 80
`

const serviceYAML = `
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: shop
spec:
  selector: {app: web}
  ports:
  - name: http
    port: 80
    targetPort: 8080
`

const configMapYAML = `
apiVersion: v1
kind: ConfigMap
metadata:
  name: web-settings
  namespace: shop
data:
  LOG_LEVEL: info
`

const secretMarker = "s3cr3t-marker-7f2a"

var secretYAML = `
apiVersion: v1
kind: Secret
metadata:
  name: web-db
  namespace: shop
type: Opaque
data:
  password: ` + base64.StdEncoding.EncodeToString([]byte(secretMarker)) + `
`

// What the API server (v1.35) adds when it stores these kinds.
var serverDefaults = map[string]string{
	"Deployment": `
metadata: {generation: 1}
spec:
  progressDeadlineSeconds: 600
  revisionHistoryLimit: 10
  strategy:
    type: RollingUpdate
    rollingUpdate: {maxSurge: 25%, maxUnavailable: 25%}
  template:
    metadata: {creationTimestamp: null}
    spec:
      containers:
      - imagePullPolicy: IfNotPresent
        ports:
        - protocol: TCP
        resources: {}
        terminationMessagePath: /dev/termination-log
        terminationMessagePolicy: File
      dnsPolicy: ClusterFirst
      restartPolicy: Always
      schedulerName: default-scheduler
      securityContext: {}
      terminationGracePeriodSeconds: 30
`,
	"Service": `
spec:
  clusterIP: 10.0.0.42
  clusterIPs: [10.0.0.42]
  internalTrafficPolicy: Cluster
  ipFamilies: [IPv4]
  ipFamilyPolicy: SingleStack
  ports:
  - protocol: TCP
  sessionAffinity: None
  type: ClusterIP
status:
  loadBalancer: {}
`,
}

// Changes controllers make after the deploy.
const deploymentLater = `
metadata:
  annotations: {deployment.kubernetes.io/revision: "1"}
status:
  observedGeneration: 2
  replicas: 2
  unavailableReplicas: 2
  updatedReplicas: 2
`

// replicasRule is the rule a user would add for a Deployment scaled by an HPA.
const replicasRule = `
apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- type: copy
  sources: [existing, new]
  path: [spec, replicas]
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}
`

const yttNoopRule = `
apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: v1, kind: ConfigMap}
  ytt:
    overlayContractV1:
      overlay.yml: |
        #@ load("@ytt:overlay", "overlay")
        #@overlay/match by=overlay.all
        ---
        metadata: {}
`

func obj(t *testing.T, s string) *unstructured.Unstructured {
	t.Helper()
	var m map[string]any
	if err := yaml.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: m}
}

// merge overlays src onto dst: maps recursively, lists item by item, scalars replaced.
func merge(dst, src any) any {
	switch s := src.(type) {
	case map[string]any:
		d, ok := dst.(map[string]any)
		if !ok || d == nil {
			d = map[string]any{}
		}
		for k, v := range s {
			d[k] = merge(d[k], v)
		}
		return d
	case []any:
		d, ok := dst.([]any)
		if !ok {
			return s
		}
		for i, v := range s {
			if i < len(d) {
				d[i] = merge(d[i], v)
			} else {
				d = append(d, v)
			}
		}
		return d
	}
	return src
}

func mergeYAML(t *testing.T, u *unstructured.Unstructured, s string) {
	t.Helper()
	u.Object = merge(u.Object, obj(t, s).Object).(map[string]any)
}

// kappDeploy simulates a first `kapp deploy` through kapp's own code, called here directly (not
// through verify's helpers, which the tests check): the change set computes what kapp sends, the
// fake API server adds its defaults, and the history annotations (kapp.k14s.io/original and
// original-diff-md5) are recorded the way clusterapply does it, before the identity annotation is
// put back as it is stored on the cluster. Returns live objects by name.
func kappDeploy(t *testing.T, desired ...*unstructured.Unstructured) map[string]*unstructured.Unstructured {
	t.Helper()
	// kapp deploy's newResources() (cmd/app/deploy.go): the files as kapp reads them, the Conf
	// with kapp's defaults, Preparation, then the app's ownership and label-scoping labels.
	var newRs []ctlres.Resource
	for _, d := range desired {
		bs, err := json.Marshal(d.Object)
		if err != nil {
			t.Fatal(err)
		}
		rs, err := ctlres.NewResourcesFromBytes(bs)
		if err != nil {
			t.Fatal(err)
		}
		newRs = append(newRs, rs...)
	}
	newRs, conf, err := ctlconf.NewConfFromResourcesWithDefaults(newRs)
	if err != nil {
		t.Fatal(err)
	}
	prep := ctlapp.NewPreparation(namespacedKinds{}, ctlapp.PrepareResourcesOpts{
		BeforeModificationFunc: func(rs []ctlres.Resource) []ctlres.Resource { return rs },
	})
	if newRs, err = prep.PrepareResources(newRs); err != nil {
		t.Fatal(err)
	}
	sel := labels.Set{"kapp.k14s.io/app": appLabel}.AsSelector()
	if err := ctlres.NewLabeledResources(sel, ctlres.IdentifiedResources{}, logger.NewNoopLogger()).Prepare(
		newRs, conf.OwnershipLabelMods(), conf.LabelScopingMods(true), conf.AdditionalLabels()); err != nil {
		t.Fatal(err)
	}
	cf := ctldiff.NewChangeFactory(conf.RebaseMods(), conf.DiffAgainstLastAppliedFieldExclusionMods(),
		conf.DiffAgainstExistingFieldExclusionMods(), ctldiff.ChangeOpts{})
	changes, err := ctldiff.NewChangeSetWithVersionedRs(nil, newRs, conf.TemplateRules(),
		ctldiff.ChangeSetOpts{AgainstLastApplied: true}, cf).Calculate()
	if err != nil {
		t.Fatal(err)
	}

	lives := map[string]*unstructured.Unstructured{}
	for i, ch := range changes {
		if ch.Op() != ctldiff.ChangeOpAdd {
			t.Fatalf("first deploy: op %s for %s", ch.Op(), ch.NewOrExistingResource().Description())
		}
		applied := ch.AppliedResource()

		// IdentifiedResources.Create sends the object with kapp's identity annotation, the API server
		// answers with its defaults and metadata, and kapp strips the identity annotation again
		// (leaving `annotations: {}` if it was the only one: that empty map is part of the md5).
		sent := applied.DeepCopy()
		if err := ctlres.NewIdentityAnnotation(sent).AddMod().Apply(sent); err != nil {
			t.Fatal(err)
		}
		stored := &unstructured.Unstructured{Object: sent.DeepCopyRaw()}
		mergeYAML(t, stored, fmt.Sprintf(`{metadata: {uid: 5d1f0c3e-0000-4000-8000-%012d, resourceVersion: "%d", creationTimestamp: "2025-01-10T10:00:00Z"}}`, i, 1000+i))
		if d, ok := serverDefaults[stored.GetKind()]; ok {
			mergeYAML(t, stored, d)
		}
		// read back as client-go's dynamic client decodes it (integers int64)
		bs, _ := json.Marshal(stored.Object)
		var un unstructured.Unstructured
		if err := un.UnmarshalJSON(bs); err != nil {
			t.Fatal(err)
		}
		saved := ctlres.NewResourceUnstructured(un, ctlres.ResourceType{})
		if err := ctlres.NewIdentityAnnotation(saved).RemoveMod().Apply(saved); err != nil {
			t.Fatal(err)
		}

		withHistory := cf.NewResourceWithHistory(saved)
		applyChange, err := withHistory.CalculateChange(applied)
		if err != nil {
			t.Fatal(err)
		}
		recorded, _, err := withHistory.RecordLastAppliedResource(applyChange)
		if err != nil {
			t.Fatal(err)
		}
		if err := ctlres.NewIdentityAnnotation(recorded).AddMod().Apply(recorded); err != nil {
			t.Fatal(err)
		}
		lives[recorded.Name()] = &unstructured.Unstructured{Object: recorded.DeepCopyRaw()}
	}
	return lives
}

func verify1(t *testing.T, p Pair, configs ...*unstructured.Unstructured) Result {
	t.Helper()
	rs, err := Verify([]Pair{p}, configs)
	if err != nil {
		t.Fatal(err)
	}
	return rs[0]
}

func expectOps(t *testing.T, r Result, lastApplied, live Op) {
	t.Helper()
	if r.Op[LastApplied] != lastApplied || r.Op[Live] != live {
		t.Errorf("ops last-applied=%s live=%s, want %s/%s\nlast-applied diff:\n%s\nlive diff:\n%s",
			r.Op[LastApplied], r.Op[Live], lastApplied, live, r.Diff[LastApplied], r.Diff[Live])
	}
	for _, b := range Bases() {
		if (r.Op[b] == OpKeep) != (r.Diff[b] == "") {
			t.Errorf("%s base: op %s with diff %q", b, r.Op[b], r.Diff[b])
		}
	}
}

// changed returns the lines of a kapp text diff that are added or removed.
func changed(diff string) []string {
	var out []string
	for _, l := range strings.Split(diff, "\n") {
		if regexp.MustCompile(`^\s*\d*,?\s*\d* [-+] `).MatchString(l) {
			out = append(out, l)
		}
	}
	return out
}

// The HPA story: a controller changes spec.replicas after kapp recorded the md5.
func TestControllerChangedReplicas(t *testing.T) {
	desired := obj(t, deploymentYAML)
	live := kappDeploy(t, desired)["web"]
	mergeYAML(t, live, deploymentLater)
	mergeYAML(t, live, `{spec: {replicas: 5}, status: {replicas: 5}}`)

	// Without rules the recorded md5 no longer matches, so kapp diffs against live under both
	// bases: replicas and every server default show up.
	r := verify1(t, Pair{Desired: desired, Live: live})
	expectOps(t, r, OpUpdate, OpUpdate)
	for _, b := range Bases() {
		for _, want := range []string{"replicas: 5", "terminationMessagePath", "progressDeadlineSeconds"} {
			if !strings.Contains(strings.Join(changed(r.Diff[b]), "\n"), want) {
				t.Errorf("%s diff lacks %q:\n%s", b, want, r.Diff[b])
			}
		}
	}

	// With the copy rule the recalculated md5 matches again: keep under kapp's default base. Under
	// the live base the defaults are still a diff: the rule alone is not robust.
	r = verify1(t, Pair{Desired: desired, Live: live}, obj(t, replicasRule))
	expectOps(t, r, OpKeep, OpUpdate)
	if lines := strings.Join(changed(r.Diff[Live]), "\n"); strings.Contains(lines, "replicas") ||
		!strings.Contains(lines, "terminationMessagePolicy") {
		t.Errorf("live-base diff should hold defaults but not replicas:\n%s", r.Diff[Live])
	}
}

func TestUntouchedLive(t *testing.T) {
	dep, cm := obj(t, deploymentYAML), obj(t, configMapYAML)
	lives := kappDeploy(t, dep, cm)
	mergeYAML(t, lives["web"], deploymentLater)

	rs, err := Verify([]Pair{{Desired: dep, Live: lives["web"]}, {Desired: cm, Live: lives["web-settings"]}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The Deployment's defaults were there when kapp recorded the md5: tolerated under last-applied.
	expectOps(t, rs[0], OpKeep, OpUpdate)
	// A ConfigMap has no defaults, yet the live base still differs: kapp strips its own annotations
	// from the live object and leaves `annotations: {}` behind.
	expectOps(t, rs[1], OpKeep, OpUpdate)
	if got := changed(rs[1].Diff[Live]); len(got) != 1 || !strings.Contains(got[0], "- ") || !strings.Contains(got[0], "annotations: {}") {
		t.Errorf("live-base ConfigMap diff should be only `- annotations: {}`:\n%s", rs[1].Diff[Live])
	}
	// The identity annotation never shows: kapp removes it from what it lists.
	for _, r := range rs {
		if strings.Contains(r.Diff[Live], "kapp.k14s.io/identity") || strings.Contains(r.Diff[Live], "kapp.k14s.io/original") {
			t.Errorf("kapp's own annotations leak into the diff:\n%s", r.Diff[Live])
		}
	}
}

func TestCreate(t *testing.T) {
	r := verify1(t, Pair{Desired: obj(t, deploymentYAML)})
	expectOps(t, r, OpCreate, OpCreate)
	for _, want := range []string{"+ ", "kapp.k14s.io/app: " + kappprep.FallbackAppLabel, "kapp.k14s.io/association"} {
		if !strings.Contains(r.Diff[LastApplied], want) {
			t.Errorf("create diff lacks %q:\n%s", want, r.Diff[LastApplied])
		}
	}
}

func TestSecretMasked(t *testing.T) {
	desired := obj(t, secretYAML)
	live := kappDeploy(t, desired)["web-db"]
	// Someone rotated the password in the cluster.
	other := secretMarker + "-rotated"
	mergeYAML(t, live, `{data: {password: `+base64.StdEncoding.EncodeToString([]byte(other))+`}}`)

	updated := verify1(t, Pair{Desired: desired, Live: live})
	expectOps(t, updated, OpUpdate, OpUpdate)
	created := verify1(t, Pair{Desired: desired})
	expectOps(t, created, OpCreate, OpCreate)
	for _, r := range []Result{updated, created} {
		for _, b := range Bases() {
			for _, secret := range []string{secretMarker, base64.StdEncoding.EncodeToString([]byte(secretMarker)),
				base64.StdEncoding.EncodeToString([]byte(other))} {
				if strings.Contains(r.Diff[b], secret) {
					t.Errorf("%s base: secret value in diff:\n%s", b, r.Diff[b])
				}
			}
			if !strings.Contains(r.Diff[b], "<-- value not shown (#1)") {
				t.Errorf("%s base: no masked value in diff:\n%s", b, r.Diff[b])
			}
		}
	}
}

func TestBuiltinRulesApply(t *testing.T) {
	desired := obj(t, serviceYAML)
	live := kappDeploy(t, desired)["web"]

	r := verify1(t, Pair{Desired: desired, Live: live})
	expectOps(t, r, OpKeep, OpUpdate)
	// kapp's default rule copies the allocated spec.clusterIP from live; clusterIPs has no rule.
	lines := strings.Join(changed(r.Diff[Live]), "\n")
	if strings.Contains(lines, "clusterIP: ") || !strings.Contains(lines, "clusterIPs") {
		t.Errorf("live-base diff: want clusterIPs but not clusterIP:\n%s", r.Diff[Live])
	}
	// status is never diffed.
	if strings.Contains(lines, "loadBalancer") {
		t.Errorf("status in diff:\n%s", r.Diff[Live])
	}
}

// A versioned ConfigMap and a Deployment that references it: kapp rewrites the reference to
// NAME-ver-N, which only works because both are diffed in the same change set.
func TestVersioned(t *testing.T) {
	cm := obj(t, `
apiVersion: v1
kind: ConfigMap
metadata:
  name: web-env
  namespace: shop
  annotations: {kapp.k14s.io/versioned: ""}
data: {MODE: blue}
`)
	dep := obj(t, deploymentYAML)
	mergeYAML(t, dep, `{spec: {template: {spec: {containers: [{envFrom: [{configMapRef: {name: web-env}}]}]}}}}`)
	lives := kappDeploy(t, cm, dep)
	cmLive, depLive := lives["web-env-ver-1"], lives["web"]
	if cmLive == nil || !strings.Contains(fmt.Sprint(depLive.Object), "web-env-ver-1") {
		t.Fatalf("kapp did not version the ConfigMap: %v", lives)
	}
	mergeYAML(t, depLive, deploymentLater)

	rs, err := Verify([]Pair{{Desired: cm, Live: cmLive}, {Desired: dep, Live: depLive}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	expectOps(t, rs[0], OpKeep, OpKeep)
	expectOps(t, rs[1], OpKeep, OpUpdate)

	// A change to the ConfigMap: kapp creates web-env-ver-2 and the Deployment follows it.
	cm2 := cm.DeepCopy()
	mergeYAML(t, cm2, `{data: {MODE: green}}`)
	rs, err = Verify([]Pair{{Desired: cm2, Live: cmLive}, {Desired: dep, Live: depLive}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	expectOps(t, rs[0], OpCreate, OpCreate)
	expectOps(t, rs[1], OpUpdate, OpUpdate)
	if !strings.Contains(rs[0].Diff[LastApplied], "+   MODE: green") ||
		!strings.Contains(strings.Join(changed(rs[1].Diff[LastApplied]), "\n"), "name: web-env-ver-2") {
		t.Errorf("versioned diffs:\n%s\n%s", rs[0].Diff[LastApplied], rs[1].Diff[LastApplied])
	}
}

func TestBadInputIsAnErrorNotAPanic(t *testing.T) {
	dep := obj(t, deploymentYAML)
	live := kappDeploy(t, dep)["web"]

	badRule := obj(t, strings.Replace(replicasRule, "type: copy", "type: copyy", 1))
	_, err := Verify([]Pair{{Desired: dep, Live: live}}, []*unstructured.Unstructured{badRule})
	t.Logf("unknown rule type: %v", err)
	if err == nil || !strings.Contains(err.Error(), "rebaseRules[0]") || !strings.Contains(err.Error(), "copyy") {
		t.Errorf("unknown rule type: err = %v", err)
	}

	emptyMatcher := obj(t, "{apiVersion: kapp.k14s.io/v1alpha1, kind: Config, rebaseRules: [{type: remove, path: [spec], resourceMatchers: [{}]}]}")
	if _, err := Verify([]Pair{{Desired: dep, Live: live}}, []*unstructured.Unstructured{emptyMatcher}); err == nil {
		t.Error("empty matcher: no error")
	}

	// kapp panics on an apiVersion with two slashes and on a non-numeric version suffix.
	cases := map[string]Pair{
		"nil desired":    {Desired: nil},
		"apiVersion":     {Desired: obj(t, "{apiVersion: a/b/c, kind: Thing, metadata: {name: x, namespace: shop}}")},
		"version suffix": {Desired: obj(t, "{apiVersion: v1, kind: ConfigMap, metadata: {name: x, namespace: shop, annotations: {kapp.k14s.io/versioned: ''}}}"), Live: obj(t, "{apiVersion: v1, kind: ConfigMap, metadata: {name: x-ver-abc, namespace: shop, annotations: {kapp.k14s.io/versioned: ''}}}")},
		"other object":   {Desired: dep, Live: obj(t, "{apiVersion: apps/v1, kind: Deployment, metadata: {name: api, namespace: shop}}")},
		"kapp config":    {Desired: obj(t, replicasRule)},
		"duplicate":      {Desired: dep},
	}
	for name, p := range cases {
		pairs := []Pair{{Desired: dep, Live: live}, p}
		_, err := Verify(pairs, nil)
		t.Logf("%s: %v", name, err)
		if err == nil || !strings.Contains(err.Error(), "pair 1") {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}

func TestOrderPreserved(t *testing.T) {
	const n = 40
	var desired []*unstructured.Unstructured
	for i := range n {
		desired = append(desired, obj(t, fmt.Sprintf("{apiVersion: v1, kind: ConfigMap, metadata: {name: cm-%02d, namespace: shop}, data: {i: '%d'}}", i, i)))
	}
	lives := kappDeploy(t, desired...)

	var pairs []Pair
	want := map[int]Op{}
	for i, d := range desired {
		switch i % 3 {
		case 0:
			pairs, want[i] = append(pairs, Pair{Desired: d}), OpCreate
		case 1:
			pairs, want[i] = append(pairs, Pair{Desired: d, Live: lives[d.GetName()]}), OpKeep
		case 2:
			changedLive := lives[d.GetName()].DeepCopy()
			mergeYAML(t, changedLive, `{data: {i: edited}}`)
			pairs, want[i] = append(pairs, Pair{Desired: d, Live: changedLive}), OpUpdate
		}
	}
	before := make([]Pair, len(pairs))
	for i, p := range pairs {
		before[i] = Pair{Desired: p.Desired.DeepCopy()}
		if p.Live != nil {
			before[i].Live = p.Live.DeepCopy()
		}
	}

	// A no-op ytt rule runs ytt in every worker at once (go test -race checks that this is safe).
	configs := []*unstructured.Unstructured{obj(t, replicasRule), obj(t, yttNoopRule)}
	first, err := Verify(pairs, configs)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Verify(pairs, configs)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range first {
		if r.Op[LastApplied] != want[i] {
			t.Errorf("%s: op %s, want %s", describe(pairs[i].Desired), r.Op[LastApplied], want[i])
		}
		if !reflect.DeepEqual(before[i], pairs[i]) {
			t.Errorf("%s: Verify modified its input", describe(pairs[i].Desired))
		}
		if r.Diff[LastApplied] != again[i].Diff[LastApplied] || r.Diff[Live] != again[i].Diff[Live] {
			t.Errorf("%s: diff differs between runs", describe(pairs[i].Desired))
		}
	}
}

// kapp replaces an empty kapp.k14s.io/nonce annotation with a timestamp on every deploy, so such a
// resource is never keep; Verify runs kapp's Preparation to get this right.
func TestNonceAlwaysUpdates(t *testing.T) {
	cm := obj(t, configMapYAML)
	mergeYAML(t, cm, `{metadata: {annotations: {kapp.k14s.io/nonce: ""}}}`)
	live := kappDeploy(t, cm)["web-settings"]
	r := verify1(t, Pair{Desired: cm, Live: live})
	expectOps(t, r, OpUpdate, OpUpdate)
	if got := changed(r.Diff[LastApplied]); len(got) != 2 || !strings.Contains(got[0], "kapp.k14s.io/nonce") {
		t.Errorf("want only the nonce to change:\n%s", r.Diff[LastApplied])
	}
}

// namespacedKinds stands in for discovery in kapp's Preparation: the kinds these tests deploy,
// all namespaced.
type namespacedKinds struct{}

func (namespacedKinds) All(bool) ([]ctlres.ResourceType, error) {
	var out []ctlres.ResourceType
	for _, gvk := range []schema.GroupVersionKind{{Version: "v1", Kind: "ConfigMap"}, {Version: "v1", Kind: "Secret"},
		{Version: "v1", Kind: "Service"}, {Group: "apps", Version: "v1", Kind: "Deployment"}} {
		out = append(out, ctlres.ResourceType{
			GroupVersionResource: gvk.GroupVersion().WithResource(strings.ToLower(gvk.Kind) + "s"),
			APIResource:          metav1.APIResource{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind, Namespaced: true},
		})
	}
	return out, nil
}

func (t namespacedKinds) Find(res ctlres.Resource) (ctlres.ResourceType, error) {
	all, _ := t.All(false)
	for _, rt := range all {
		if rt.APIResource.Kind == res.Kind() && rt.GroupVersionResource.GroupVersion().String() == res.APIVersion() {
			return rt, nil
		}
	}
	return ctlres.ResourceType{}, fmt.Errorf("kind %s %s not among the test's kinds", res.APIVersion(), res.Kind())
}

func (namespacedKinds) CanIgnoreFailingGroupVersion(schema.GroupVersion) bool { return false }

// Ops is what one kapp deploy computes, as kapp-controller runs it: kapp's change of each pair
// under the last-applied base alone (the live base is kapp's fallback inside that change, not a
// second diff), with kapp's rebase mods as kapp runs them (no ytt memo). The oracle is kapp's own
// ChangeSet with --diff-against-last-applied, its mods counted by the test: the op, the rebase
// mods applied and the ytt evaluations must be kapp's, for kapp's defaults alone, a copy rule and
// a ytt rule.
func TestOpsIsOneKappDeploy(t *testing.T) {
	desired := obj(t, deploymentYAML)
	live := kappDeploy(t, desired)["web"]
	mergeYAML(t, live, deploymentLater)
	mergeYAML(t, live, `{spec: {replicas: 5}, status: {replicas: 5}}`)
	pairAt := func(int) (Pair, error) {
		return Pair{Desired: desired.DeepCopy(), Live: live.DeepCopy()}, nil
	}
	yttRule := strings.Replace(yttNoopRule, "{apiVersion: v1, kind: ConfigMap}", "{apiVersion: apps/v1, kind: Deployment}", 1)
	for _, configs := range [][]*unstructured.Unstructured{nil, {obj(t, replicasRule)}, {obj(t, yttRule)}} {
		wantOp, wantApplied, wantYTT := kappsDeploy(t, desired, live, configs)
		hits, misses := kappglobal.YTTMemoStats()
		got, cost, err := Ops(1, pairAt, configs)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[Base]Op{LastApplied: opName(wantOp)}; !reflect.DeepEqual(got[0].Op, want) || len(got[0].Diff) != 0 {
			t.Errorf("%d configs: Ops %v (diff %q), kapp deploy %v", len(configs), got[0].Op, got[0].Diff, want)
		}
		if cost.Applied != wantApplied || cost.YTT != wantYTT {
			t.Errorf("%d configs: Ops applied %d rebase mods (%d ytt), kapp deploy %d (%d ytt)", len(configs), cost.Applied, cost.YTT, wantApplied, wantYTT)
		}
		if h, m := kappglobal.YTTMemoStats(); h != hits || m != misses {
			t.Errorf("%d configs: Ops went through the ytt memo (%d/%d -> %d/%d): kapp has none", len(configs), hits, misses, h, m)
		}
	}
}

// kappsDeploy is kapp deploy's change of the pair (diff.ChangeSet, against the last-applied
// base, after kapp's preparation) with the configs after kapp's defaults: its op, and how many
// rebase mods (ytt ones) kapp applied, counted on kapp's own mods.
func kappsDeploy(t *testing.T, desired, live *unstructured.Unstructured, configs []*unstructured.Unstructured) (op ctldiff.ChangeOp, applied, ytt int64) {
	t.Helper()
	parse := func(u *unstructured.Unstructured) ctlres.Resource {
		bs, err := json.Marshal(u.Object)
		if err != nil {
			t.Fatal(err)
		}
		rs, err := ctlres.NewResourcesFromBytes(bs)
		if err != nil {
			t.Fatal(err)
		}
		return rs[0]
	}
	var cfgs []ctlres.Resource
	for _, c := range configs {
		cfgs = append(cfgs, parse(c))
	}
	_, conf, err := ctlconf.NewConfFromResourcesWithDefaults(cfgs)
	if err != nil {
		t.Fatal(err)
	}
	news, err := kappprep.Resources(conf, []ctlres.Resource{parse(desired)}, live.GetLabels()["kapp.k14s.io/app"])
	if err != nil {
		t.Fatal(err)
	}
	existing := ctlres.NewResourceUnstructured(*live.DeepCopy(), ctlres.ResourceType{})
	if err := ctlres.NewIdentityAnnotation(existing).RemoveMod().Apply(existing); err != nil {
		t.Fatal(err)
	}
	mods := conf.RebaseMods()
	for i, m := range mods {
		_, isYTT := m.(yttresmod.OverlayContractV1Mod)
		mods[i] = testCounted{m, func() {
			applied++
			if isYTT {
				ytt++
			}
		}}
	}
	cf := ctldiff.NewChangeFactory(mods, conf.DiffAgainstLastAppliedFieldExclusionMods(), conf.DiffAgainstExistingFieldExclusionMods(), ctldiff.ChangeOpts{})
	changes, err := ctldiff.NewChangeSet([]ctlres.Resource{existing}, news, ctldiff.ChangeSetOpts{AgainstLastApplied: true}, cf).Calculate()
	if err != nil || len(changes) != 1 {
		t.Fatalf("kapp: %d changes, %v", len(changes), err)
	}
	return changes[0].Op(), applied, ytt
}

type testCounted struct {
	ctlres.ResourceModWithMultiple
	count func()
}

func (c testCounted) ApplyFromMultiple(res ctlres.Resource, srcs map[ctlres.FieldCopyModSource]ctlres.Resource) error {
	c.count()
	return c.ResourceModWithMultiple.ApplyFromMultiple(res, srcs)
}

// A pair given its manifest's document is named by it in errors, not by its index (probe9 P9-1:
// "pair 0 (Deployment ...)" named no file).
func TestPairErrorNamesTheDocument(t *testing.T) {
	p := Pair{Desired: obj(t, "{apiVersion: v1, kind: ConfigMap, metadata: {name: x, namespace: shop, annotations: {kapp.k14s.io/nonce: abc}}}"),
		Source: "desired.yaml: document 3 (line 9)"}
	_, err := Verify([]Pair{p}, nil)
	if err == nil || !strings.HasPrefix(err.Error(), "desired.yaml: document 3 (line 9) (ConfigMap shop/x (v1)): ") {
		t.Errorf("err = %v", err)
	}
}
