// Package scenario loads the captured ghost-diff scenarios in fixtures/<name>/ and runs them on a
// real cluster (hack/capture writes the fixtures with it; e2e tests replay them).
//
// A scenario directory holds:
//   - desired.yaml: the manifests a package author wrote, deployed with the real kapp CLI;
//   - scenario.yaml: a hand-written header (Scenario without Fields) followed by the `fields:`
//     section that hack/capture rewrites: every field that differs between desired and live, with
//     its ground-truth class;
//   - live.yaml: the objects read back from the API server after the deploy and the steps, with
//     managedFields, in desired.yaml's order;
//   - server-version.json: that API server's GET /version body (version.go).
package scenario

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// Ground-truth classes of a differing field.
const (
	ClassDefaulted   = "defaulted"   // set by the API server's defaulting when the object was created
	ClassCalculated  = "calculated"  // computed at creation: allocators, registry strategies
	ClassAdmission   = "admission"   // added at creation by an admission plugin or webhook (Truth.Admission)
	ClassDrift       = "drift"       // a human changed it
	ClassAdoption    = "adoption"    // kapp's deploy changed it once when it took the object over
	ClassOperational = "operational" // a person stamped it on purpose with a known tool (kubectl rollout restart)
	ControllerClass  = "controller:" // + field manager: another controller owns it
	// ClassApplier: the applier's own bookkeeping, which its manifest does not hold: the
	// kubectl.kubernetes.io/last-applied-configuration annotation Argo CD's client-side apply
	// writes (kapp's own annotations are fielddiff's noise).
	ClassApplier = "applier"
)

// Appliers of a scenario's desired objects (Scenario.Applier).
const (
	ApplierKapp             = "kapp"               // kapp deploy (the default)
	ApplierArgoCD           = "argocd"             // Argo CD's default sync: client-side apply
	ApplierArgoCDServerSide = "argocd-server-side" // Argo CD with the ServerSideApply=true sync option
)

// Scenario is the content of scenario.yaml plus the objects of desired.yaml and live.yaml.
type Scenario struct {
	Name        string `json:"name"` // also the kapp app name
	Description string `json:"description"`
	Namespace   string `json:"namespace"` // kapp deploy -n; each scenario has its own
	// Applier deploys desired.yaml: kapp (the default), or Argo CD's sync of an Application
	// named after the scenario whose destination is the scenario namespace, with Argo CD's own
	// apply code (Target.ArgoCD): argocd (client-side apply, its default) or argocd-server-side
	// (the ServerSideApply=true sync option).
	Applier string `json:"applier,omitempty"`
	// Before are applies by other tools before kapp's deploy: objects kapp takes over.
	Before []Apply `json:"before,omitempty"`
	// Adoption: live.yaml holds the objects as the earlier tools left them, read before kapp's
	// deploy (after the steps, which then follow the Before applies); kapp then deploys, and the
	// differing fields its deploy changed are ClassAdoption.
	Adoption bool `json:"adoption,omitempty"`
	// WithoutManagedFields: live.yaml is written as `kubectl get -o yaml` exports it, without
	// managedFields (the classes still come from the objects' history).
	WithoutManagedFields bool `json:"withoutManagedFields,omitempty"`
	// Steps run after the kapp deploy (in an Adoption scenario: after Before), in order: what
	// controllers and humans did.
	Steps []Step `json:"steps,omitempty"`
	Truth Truth  `json:"truth,omitempty"`
	// Webhook, when set, is served and registered before the deploy and removed by Cleanup.
	Webhook    *Webhook    `json:"webhook,omitempty"`
	RealChange *RealChange `json:"realChange,omitempty"`
	// Fields is rewritten by hack/capture.
	Fields []Field `json:"fields,omitempty"`

	Dir     string   `json:"-"`
	Objects []Object `json:"-"` // one per desired.yaml document, in order
	// Rulesets: the scenario's ruleset.yaml when it has one, given as --ruleset: the controllers
	// it invents, named as a user names theirs.
	Rulesets []string `json:"-"`

	webhook *webhookServer // while Run's webhook serves, until Cleanup
}

// Object pairs a desired manifest with the live object captured for it.
type Object struct {
	// Resource is "<group>/<Kind> <namespace>/<name>" ("core" for the core group; no
	// namespace part for cluster-scoped objects), as in Field.Resource.
	Resource string
	// Desired is the manifest from desired.yaml; for namespaced kinds metadata.namespace is set
	// to the scenario namespace, as `kapp deploy -n` does.
	Desired *unstructured.Unstructured
	// Live is nil until captured (no live.yaml).
	Live *unstructured.Unstructured
}

// Truth holds hints for the ground truth that cannot be observed.
type Truth struct {
	// Calculated lists field paths (fielddiff syntax; `*` matches any text; a path also covers
	// the fields under it), optionally after "<group>/<Kind> " to apply to one kind only, that the
	// server computes at creation rather than defaults: allocated clusterIP(s) and node ports,
	// ipFamilies, Job selectors and labels, ... Fields set at creation and not listed are
	// ClassDefaulted.
	Calculated []string `json:"calculated,omitempty"`
	// Admission lists, in the same syntax, the fields an admission plugin or the scenario's
	// Webhook added during kapp's create: ClassAdmission.
	Admission []string `json:"admission,omitempty"`
	// Orphaned lists, in the same syntax, fields a controller wrote last for an object a later
	// step deleted (an autoscaler dropped from the package): nothing writes them again, and kapp's
	// next deploy reverts them, which is ClassDrift, whoever wrote them.
	Orphaned []string `json:"orphaned,omitempty"`
}

// Field is one differing field and its ground-truth class.
type Field struct {
	Resource string `json:"resource"`
	Path     string `json:"path"`  // fielddiff.Path.String()
	Class    string `json:"class"` // defaulted | calculated | drift | controller:<manager>
}

// RealChange is a change a user makes to desired.yaml that generated rules must not hide.
type RealChange struct {
	Description string `json:"description"`
	Resource    string `json:"resource"`
	Path        string `json:"path"` // the field that must stay visible in the diff
	// JSONPatch is an RFC 6902 patch applied to the desired object.
	JSONPatch json.RawMessage `json:"jsonPatch"`
}

// Apply is another tool's apply of a desired object before kapp's deploy, recorded under its
// field manager exactly as that tool's write would be.
type Apply struct {
	Resource     string `json:"resource"`     // "<group>/<Kind> [<namespace>/]<name>"
	FieldManager string `json:"fieldManager"` // e.g. kubectl-client-side-apply, argocd-controller, helm
	// Mode: client-side (as `kubectl apply`: a create with the object's JSON in the
	// kubectl.kubernetes.io/last-applied-configuration annotation, an Update in managedFields)
	// or server-side (an apply patch).
	Mode string `json:"mode"`
	// Merge is an RFC 7386 merge patch on the desired object: what the tool applied differs
	// (an older manifest in Git, the tool's own labels and annotations).
	Merge json.RawMessage `json:"merge,omitempty"`
}

// Step is one action after the deploy; exactly one of Patch, WaitFor, Kapp is set.
type Step struct {
	// Class is what the step represents: controller:<manager> or drift. Fields the step changes
	// get this class.
	Class   string    `json:"class"`
	Note    string    `json:"note,omitempty"`
	Patch   *Patch    `json:"patch,omitempty"`
	WaitFor *WaitFor  `json:"waitFor,omitempty"`
	Kapp    *KappStep `json:"kapp,omitempty"`
}

// Patch patches a desired object as another controller (or a human) would, under its field
// manager name, which managedFields then records exactly as for the real thing.
type Patch struct {
	Resource     string          `json:"resource"` // "<group>/<Kind> [<namespace>/]<name>"
	Type         string          `json:"type"`     // merge | json | strategic | apply
	FieldManager string          `json:"fieldManager"`
	Subresource  string          `json:"subresource,omitempty"` // e.g. scale
	Patch        json.RawMessage `json:"patch"`
}

// WaitFor waits until a field of a desired object has a value (e.g. the HPA scaled replicas), or
// without Value until it is set and not empty (e.g. aggregated ClusterRole rules).
type WaitFor struct {
	Resource string `json:"resource"`
	// Path is dot-separated map keys, a key with dots quoted in brackets as fielddiff writes it:
	// spec.replicas, metadata.annotations["deployment.kubernetes.io/revision"].
	Path    string          `json:"path"`
	Value   json.RawMessage `json:"value,omitempty"`
	Timeout metav1.Duration `json:"timeout,omitempty"` // default 60s
}

// KappStep runs kapp in the scenario directory; $APP and $NS expand to the app name and namespace.
type KappStep struct {
	Args []string `json:"args"`
}

// LoadAll loads every scenario under dir (fixtures/), sorted by name.
func LoadAll(dir string) ([]*Scenario, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []*Scenario
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(dir, e.Name(), "scenario.yaml")); err != nil {
			continue
		}
		s, err := Load(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Load reads scenario.yaml, desired.yaml and, if present, live.yaml from dir.
func Load(dir string) (*Scenario, error) {
	bs, err := os.ReadFile(filepath.Join(dir, "scenario.yaml"))
	if err != nil {
		return nil, err
	}
	s := &Scenario{Dir: dir}
	if err := yaml.UnmarshalStrict(bs, s); err != nil {
		return nil, fmt.Errorf("%s/scenario.yaml: %w", dir, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "ruleset.yaml")); err == nil {
		s.Rulesets = []string{filepath.Join(dir, "ruleset.yaml")}
	}
	if s.Name == "" || s.Namespace == "" {
		return nil, fmt.Errorf("%s/scenario.yaml: name and namespace are required", dir)
	}
	desired, err := readObjects(filepath.Join(dir, "desired.yaml"))
	if err != nil {
		return nil, err
	}
	var live []*unstructured.Unstructured
	if _, err := os.Stat(filepath.Join(dir, "live.yaml")); err == nil {
		if live, err = readObjects(filepath.Join(dir, "live.yaml")); err != nil {
			return nil, err
		}
		if len(live) != len(desired) {
			return nil, fmt.Errorf("%s: %d desired objects but %d live ones", dir, len(desired), len(live))
		}
	}
	for i, d := range desired {
		o := Object{Desired: d}
		if live != nil {
			o.Live = live[i]
			if !sameObject(d, o.Live) {
				return nil, fmt.Errorf("%s: live.yaml document %d is %s, not %s", dir, i+1, ResourceID(o.Live), ResourceID(d))
			}
			if d.GetNamespace() == "" {
				d.SetNamespace(o.Live.GetNamespace())
			}
		}
		o.Resource = ResourceID(d)
		s.Objects = append(s.Objects, o)
	}
	return s, s.validate()
}

func (s *Scenario) validate() error {
	switch s.Applier {
	case "", ApplierKapp:
	case ApplierArgoCD, ApplierArgoCDServerSide:
		if len(s.Before) > 0 || s.Adoption {
			return fmt.Errorf("%s: applier %s: before and adoption are kapp's (objects kapp takes over)", s.Name, s.Applier)
		}
	default:
		return fmt.Errorf("%s: applier %q: want %s, %s or %s", s.Name, s.Applier, ApplierKapp, ApplierArgoCD, ApplierArgoCDServerSide)
	}
	for i, a := range s.Before {
		if a.FieldManager == "" || (a.Mode != "client-side" && a.Mode != "server-side") {
			return fmt.Errorf("%s: before %d needs a fieldManager and mode client-side or server-side", s.Name, i+1)
		}
	}
	for i, st := range s.Steps {
		if st.WaitFor != nil {
			if _, err := mapKeys(st.WaitFor.Path); err != nil {
				return fmt.Errorf("%s: step %d: %w", s.Name, i+1, err)
			}
		}
		n := 0
		if st.Patch != nil {
			n++
		}
		if st.WaitFor != nil {
			n++
		}
		if st.Kapp != nil {
			n++
		}
		if n != 1 || (st.Class != ClassDrift && st.Class != ClassOperational && !strings.HasPrefix(st.Class, ControllerClass)) {
			return fmt.Errorf("%s: step %d needs exactly one of patch, waitFor, kapp and a class drift, operational or controller:<manager>", s.Name, i+1)
		}
	}
	return nil
}

// ArgoCD reports whether Argo CD applies the scenario's objects.
func (s *Scenario) ArgoCD() bool {
	return s.Applier == ApplierArgoCD || s.Applier == ApplierArgoCDServerSide
}

// manager is the field manager the scenario's applier writes under: kapp's argv[0], or Argo CD's
// in both of its apply modes (argo-cd common.ArgoCDSSAManager).
func (s *Scenario) manager() string {
	if s.ArgoCD() {
		return "argocd-controller"
	}
	return "kapp"
}

// DesiredWithRealChange returns copies of the desired objects with RealChange applied.
func (s *Scenario) DesiredWithRealChange() ([]*unstructured.Unstructured, error) {
	if s.RealChange == nil {
		return nil, fmt.Errorf("%s has no realChange", s.Name)
	}
	patch, err := jsonpatch.DecodePatch(s.RealChange.JSONPatch)
	if err != nil {
		return nil, err
	}
	var out []*unstructured.Unstructured
	found := false
	for _, o := range s.Objects {
		d := o.Desired.DeepCopy()
		if o.Resource == s.RealChange.Resource {
			found = true
			bs, err := d.MarshalJSON()
			if err != nil {
				return nil, err
			}
			if bs, err = patch.Apply(bs); err != nil {
				return nil, fmt.Errorf("%s realChange: %w", s.Name, err)
			}
			if err := d.UnmarshalJSON(bs); err != nil {
				return nil, err
			}
		}
		out = append(out, d)
	}
	if !found {
		return nil, fmt.Errorf("%s realChange: no desired object %s", s.Name, s.RealChange.Resource)
	}
	return out, nil
}

// keyPart is one map key of a WaitFor path: a plain key, or a quoted one in brackets.
var keyPart = regexp.MustCompile(`^\.?(?:([^.\["]+)|\[("(?:[^"\\]|\\.)*")\])`)

// mapKeys splits a WaitFor path into its map keys.
func mapKeys(path string) ([]string, error) {
	var keys []string
	for rest := path; rest != ""; {
		m := keyPart.FindStringSubmatch(rest)
		key := ""
		if m != nil && (len(keys) > 0 || !strings.HasPrefix(rest, ".")) {
			key = m[1]
			if m[2] != "" {
				key, _ = strconv.Unquote(m[2])
			}
		}
		if key == "" {
			return nil, fmt.Errorf("waitFor path %q: want dot-separated map keys, a key with dots as [\"key\"]", path)
		}
		keys = append(keys, key)
		rest = rest[len(m[0]):]
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("waitFor path is empty")
	}
	return keys, nil
}
