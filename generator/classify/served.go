package classify

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/version"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/rulesets"
)

// served is what rebasegen knows of the versions the API server serves each kind at: kapp's
// deploy takes an object only at a version discovery lists for its kind, so a manifest on
// another version fails the deploy before it applies anything (measured: kapp v0.66.0 against
// kube-apiserver v1.37.2, "Expected to find kind 'autoscaling/v2beta2/HorizontalPodAutoscaler',
// but did not").
type served struct {
	server *load.ServerVersion // nil: not known
	// data is kube-apiserver's of the server's minor version (rulesets/served); nil: none
	data *rulesets.Served
	// known are the minor versions rulesets/served has data for; builtin the groups any of them
	// serves: Kubernetes' own, never a CRD's or an aggregated API's
	known   []string
	builtin map[string]bool
	// removed are the API versions Kubernetes stopped serving (rulesets/removed/apiversions.yaml), a fact for
	// every later server whether or not rulesets/served has its data; oldest is the oldest minor
	// version rebasegen has data for (rulesets/defaults, rulesets/served), the oldest it supports
	removed []rulesets.Removed
	oldest  *version.Version
	crds    crdSchemas // the CRDs among the inputs, as kapp's deploy applies them (appliedCRDs)
	inputs  crdSchemas // the CRDs among the inputs (a version both the desired and the live CRD hold: the live one's)
}

func newServed(sv *load.ServerVersion, crds, inputs crdSchemas) (*served, error) {
	all, err := rulesets.ServedVersions()
	if err != nil {
		return nil, err
	}
	removed, err := rulesets.RemovedAPIVersions()
	if err != nil {
		return nil, err
	}
	defaults, err := rulesets.Versions()
	if err != nil {
		return nil, err
	}
	s := &served{server: sv, builtin: map[string]bool{}, removed: removed, crds: crds, inputs: inputs}
	for i, d := range all {
		v, err := version.ParseSemantic(d.Version)
		if err != nil {
			return nil, fmt.Errorf("rulesets/served: version %q: %w", d.Version, err)
		}
		s.known = append(s.known, minorOf(d.Version))
		if sv != nil && sameMinor(v, sv.Version) {
			s.data = &all[i]
		}
		s.older(v)
		for _, gv := range d.GroupVersions {
			g, _ := schema.ParseGroupVersion(gv.GroupVersion)
			s.builtin[g.Group] = true
		}
	}
	for _, d := range defaults {
		v, err := version.ParseSemantic(d.Version)
		if err != nil {
			return nil, fmt.Errorf("rulesets/defaults: version %q: %w", d.Version, err)
		}
		s.older(v)
	}
	for _, r := range removed {
		g, _ := schema.ParseGroupVersion(r.APIVersion)
		s.builtin[g.Group] = true // extensions: served by no version rulesets/served holds
	}
	return s, nil
}

// older makes v the oldest version rebasegen supports when it is older.
func (s *served) older(v *version.Version) {
	if s.oldest == nil || v.LessThan(s.oldest) {
		s.oldest = v
	}
}

// servedAt is what is known of whether the server serves a kind at a version: yes or no, and
// by whose word (source), with the versions it serves the kind at; or neither, and why not.
type servedAt struct {
	known, yes bool
	source     string   // what serves the kind: kube-apiserver v1.37 by default, CRD NAME
	versions   []string // the group/versions it serves the kind at
	why        string   // !known: why it cannot be told
	fails      string   // !yes: how kapp's deploy fails on the manifest
	removed    string   // !yes by rulesets/removed/apiversions.yaml: the release that stopped serving it, and the source
	// applied: the CRD that says so is a desired object's, which kapp's deploy applies first
	applied bool
}

// only names the versions s serves the kind at, as "only at ..." or "at no version"; or the
// release that stopped serving the manifest's.
func (s servedAt) only() string {
	if s.removed != "" {
		return s.removed
	}
	if len(s.versions) == 0 {
		return "at no version"
	}
	return "only at " + strings.Join(s.versions, ", ")
}

// precheckFails is how kapp's deploy fails on a manifest whose apiVersion and kind neither
// discovery nor a CRD among the manifests lists (kapp v0.66.0 pkg/kapp/resourcesmisc/crds.go
// IsNamespaced: the local CRDs' every spec.versions[].name counts, served or not).
func precheckFails(gvk schema.GroupVersionKind) string {
	return fmt.Sprintf("kapp's deploy fails before applying anything (kapp v0.66.0: \"Expected to find kind '%s/%s', but did not: Kubernetes API server did not have matching apiVersion + kind\")", gvk.GroupVersion(), gvk.Kind)
}

// at judges gvk against the server's discovery as rebasegen knows it.
func (s *served) at(gvk schema.GroupVersionKind) servedAt {
	gk := gvk.GroupKind()
	if s.builtin[gk.Group] {
		if s.data == nil {
			if r, ok := s.removal(gvk); ok {
				return r
			}
		}
		switch {
		case s.server == nil:
			return servedAt{why: "the server's version is not known (no " + load.ServerVersionFile + " beside the live objects, no --server-version)"}
		case s.data == nil:
			return servedAt{why: fmt.Sprintf("rebasegen knows what kube-apiserver serves of %s only (rulesets/served), not of %s (%s)", strings.Join(s.known, ", "), s.server, s.server.Source)}
		}
		out := servedAt{known: true, fails: precheckFails(gvk), source: fmt.Sprintf("kube-apiserver %s, with its default API resource config (rulesets/served/%s.yaml, read from its discovery; a cluster may enable a version it still has with --runtime-config),", minorOf(s.data.Version), minorOf(s.data.Version))}
		for _, gv := range s.data.GroupVersions {
			g, _ := schema.ParseGroupVersion(gv.GroupVersion)
			if g.Group == gk.Group && slices.Contains(gv.Kinds, gk.Kind) {
				out.versions = append(out.versions, gv.GroupVersion)
			}
		}
		out.yes = slices.Contains(out.versions, gvk.GroupVersion().String())
		return out
	}
	crd, _, versions, desired := s.crds.versionsOf(gk)
	if crd == "" {
		return servedAt{why: fmt.Sprintf("no CustomResourceDefinition for %s among the inputs (a kind of an aggregated API, or pass its CRD)", gk)}
	}
	out := servedAt{known: true, fails: precheckFails(gvk), source: "CustomResourceDefinition " + crd + ", among the inputs (spec.versions[].served),"}
	if desired {
		out.source, out.applied = "CustomResourceDefinition "+crd+" as the manifests declare it, which kapp applies before the custom resources (spec.versions[].served),", true
		// kapp's precheck passes on a version the desired CRD lists or the live one serves
		if live := s.inputs.lookup(gvk); s.crds.lookup(gvk) != nil || live != nil && live.served {
			out.fails = appliedCRDFails
		}
	}
	for _, v := range versions {
		out.versions = append(out.versions, schema.GroupVersion{Group: gk.Group, Version: v}.String())
	}
	out.yes = slices.Contains(out.versions, gvk.GroupVersion().String())
	return out
}

// removal is what rulesets/removed/apiversions.yaml says of gvk: not served by a server at or after the
// release that stopped serving it; where the server's version is not known, not served by the
// oldest version rebasegen supports (a removal before it holds for every supported server: the
// live objects are then judged with the linked version's defaults too).
func (s *served) removal(gvk schema.GroupVersionKind) (servedAt, bool) {
	at := s.oldest
	source := fmt.Sprintf("a kube-apiserver of any version rebasegen supports (%s and later, the oldest rulesets/defaults or rulesets/served holds; the server's version is not known: for an older server, give --server-version)", minorOf("v"+s.oldest.String()))
	if s.server != nil {
		at, source = s.server.Version, fmt.Sprintf("kube-apiserver %s (%s)", s.server, s.server.Source)
	}
	for _, r := range s.removed {
		in, _ := version.ParseSemantic(r.RemovedIn + ".0") // validated when loaded
		if r.APIVersion != gvk.GroupVersion().String() || !slices.Contains(r.Kinds, gvk.Kind) || !in.LessThan(at) && !sameMinor(in, at) {
			continue
		}
		return servedAt{known: true, source: source, fails: precheckFails(gvk),
			removed: fmt.Sprintf("which Kubernetes stopped serving in %s (Deprecated API Migration Guide: %s; rulesets/removed/apiversions.yaml)", r.RemovedIn, r.Source)}, true
	}
	return servedAt{}, false
}

// apiVersion classifies the manifest's apiVersion where the server returned the object at
// another version of its group (the version it lists the kind at): kapp's diff shows the
// change on every deploy, and its deploy fails where the server does not serve the kind at the
// manifest's version (Unserved). Drift otherwise, as the manifest
// is what to change.
func (c *classifier) apiVersion(fc fieldContext, d fielddiff.Delta) Finding {
	f := Finding{Path: d.Path, Change: d.Change, Desired: d.Desired, Live: d.Live, Class: Drift}
	gvk, live := fc.desired.GroupVersionKind(), fmt.Sprint(d.Live)
	converted := fmt.Sprintf("the server returned the object as %v, converted from the manifest's %v", live, d.Desired)
	s := c.served.at(gvk)
	switch {
	case !s.known:
		f.ServedUnknown = true
		f.Evidence = fmt.Sprintf("%s: whether the server serves %s at %s cannot be judged: %s; if it does not, kapp's deploy fails before applying anything, else kapp updates it on every deploy: set the manifest's apiVersion to %s", converted, gvk.Kind, gvk.GroupVersion(), s.why, live)
	case s.yes && s.applied && !slices.Contains(s.versions, live):
		// the manifest moves off a version the CRD it declares stops serving: the way to go
		// (measured: kapp v0.66.0 updates the object at the new version)
		f.Evidence = fmt.Sprintf("%s, which %s serves, and no longer %s: kapp's update succeeds; keep the manifest's apiVersion", converted, s.source, live)
	case s.yes:
		f.Evidence = fmt.Sprintf("%s, which %s serves too: kapp's update succeeds, and kapp updates the object on every deploy, the version differing: set the manifest's apiVersion to %s", converted, s.source, live)
	default:
		f.Unserved = true
		use := live
		if !slices.Contains(s.versions, live) && len(s.versions) > 0 {
			use = s.versions[0]
		}
		f.Evidence = fmt.Sprintf("%s: %s does not serve %s at %s, %s: %s; set the manifest's apiVersion to %s", converted, s.source, gvk.Kind, gvk.GroupVersion(), s.only(), s.fails, use)
		f.Warning = fmt.Sprintf("the server does not serve %s at %s: set the manifest's apiVersion to %s", gvk.Kind, gvk.GroupVersion(), use)
	}
	return f
}

// appliedCRDFails is how kapp's deploy fails on a custom resource at a version the CRD among
// the manifests lists but does not serve: kapp's check of the kinds passes, it applies the CRD,
// then fails on the object (measured, kapp v0.66.0 on kube-apiserver v1.37.2: the version unserved
// by this deploy, NotFound, findings/probe17/P17-2; unserved before, "Expected to find type for
// resource"; an object with nothing to change passes this deploy, and the next one fails on it).
const appliedCRDFails = "kapp's deploy applies the CRD first (it lists the version, so kapp's check of the kinds passes), then fails on this object (kapp v0.66.0: \"update ...: the server could not find the requested resource (reason: NotFound)\" where this deploy stops serving the version, \"Expected to find type for resource\" where it was not served; with nothing to change in the object, the next deploy fails on it)"

// unservedKept is the finding for a custom resource whose manifest keeps the live object's
// apiVersion while the CRD among the desired objects, which kapp applies first, no longer serves
// it (served: false, or the version dropped): there is no apiVersion difference for apiVersion to
// judge (probe17 P17-2: check exited 0). Only with the desired CRD: the live object was read at
// that version, so the live CRD served it.
func (c *classifier) unservedKept(fc fieldContext) (Finding, bool) {
	gvk, v := fc.desired.GroupVersionKind(), fc.desired.GetAPIVersion()
	// every pair comes here: a kind of Kubernetes' own is never a CRD's (at judges it by discovery)
	if v != fc.live.GetAPIVersion() || c.served.builtin[gvk.Group] {
		return Finding{}, false
	}
	s := c.served.at(gvk)
	if !s.known || s.yes || !s.applied {
		return Finding{}, false
	}
	f := Finding{Path: fielddiff.FromFields([]string{"apiVersion"}), Change: fielddiff.Same, Desired: v, Live: v, Class: Drift, Unserved: true}
	to := "one it serves"
	if len(s.versions) > 0 {
		to = s.versions[0]
	}
	f.Evidence = fmt.Sprintf("%s does not serve %s at %s, %s: %s; set the manifest's apiVersion to %s", s.source, gvk.Kind, v, s.only(), s.fails, to)
	f.Warning = fmt.Sprintf("the CRD the manifests declare does not serve %s at %s: set the manifest's apiVersion to %s", gvk.Kind, v, to)
	return f, true
}
