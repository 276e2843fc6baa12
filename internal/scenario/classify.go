package scenario

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// classify returns every field that differs between desired and the last revision of hist, with
// the class of the write that gave the field its final value.
func (r *runner) classify(desired *unstructured.Unstructured, hist []*unstructured.Unstructured) ([]Field, error) {
	live := hist[len(hist)-1]
	paths, err := fieldPaths(desired, live)
	if err != nil {
		return nil, err
	}
	// changed[k]: paths that differ between revision k and the final revision
	changed := make([][]fielddiff.Path, len(hist)-1)
	for k := range changed {
		if changed[k], err = diffPaths(hist[k], live, true); err != nil {
			return nil, err
		}
	}
	var out []Field
	for _, p := range paths {
		class := r.creationClass(ResourceID(live), p.String())
		// the revision after the last one where p had another value set its final value
		for k := len(changed) - 1; k >= 0; k-- {
			if overlaps(changed[k], p) {
				if c, creation := r.writeClass(hist[k], hist[k+1]); !creation {
					class = c
				}
				break
			}
		}
		if strings.HasPrefix(class, ControllerClass) && matchTruth(r.s.Truth.Orphaned, ResourceID(live), p.String()) {
			class = ClassDrift
		}
		out = append(out, Field{Resource: ResourceID(live), Path: p.String(), Class: class})
	}
	return out, nil
}

func (r *runner) creationClass(resource, path string) string {
	if r.s.ArgoCD() && path == fmt.Sprintf("metadata.annotations[%q]", corev1.LastAppliedConfigAnnotation) {
		return ClassApplier
	}
	if matchTruth(r.s.Truth.Admission, resource, path) {
		return ClassAdmission
	}
	if matchTruth(r.s.Truth.Calculated, resource, path) {
		return ClassCalculated
	}
	return ClassDefaulted
}

// matchTruth reports whether one of the Truth patterns covers the path of resource.
func matchTruth(patterns []string, resource, path string) bool {
	for _, pat := range patterns {
		if kind, p, ok := strings.Cut(pat, " "); ok {
			if !strings.HasPrefix(resource, kind+" ") {
				continue
			}
			pat = p
		}
		re := "^" + strings.ReplaceAll(regexp.QuoteMeta(pat), `\*`, ".*") + `($|[.\[])`
		if regexp.MustCompile(re).MatchString(path) {
			return true
		}
	}
	return false
}

// writeClass attributes the write that turned revision prev into cur. creation is true when it was
// the applier's own write during the deploy (kapp writes each object twice: create, then its md5
// annotation), which counts as creation.
func (r *runner) writeClass(prev, cur *unstructured.Unstructured) (class string, creation bool) {
	if i, ok := r.patchRVs[cur.GetResourceVersion()]; ok {
		return r.s.Steps[i].Class, false
	}
	step := r.stepAt(cur.GetResourceVersion()) // -1: during the deploy
	if ws := writers(prev, cur); len(ws) == 1 {
		if ws[0] == r.s.manager() {
			if step >= 0 && r.s.Steps[step].Kapp != nil {
				return r.s.Steps[step].Class, false
			}
			return "", true
		}
		for _, st := range r.s.Steps {
			if st.Patch != nil && st.Patch.FieldManager == ws[0] {
				return st.Class, false
			}
		}
		return ControllerClass + ws[0], false
	}
	// writer unknown (e.g. a manager wrote twice within one second): the phase decides
	if step >= 0 {
		return r.s.Steps[step].Class, false
	}
	return ControllerClass + "kube-controller-manager", false
}

// stepAt returns the step during which the cluster reached resourceVersion rv, -1 for the deploy.
func (r *runner) stepAt(rv string) int {
	n, err := parseRV(rv)
	if err != nil {
		return -1
	}
	for i, end := range r.windows {
		if n <= end {
			return i - 1
		}
	}
	return len(r.windows) - 2 // after the last step: the final settle belongs to it
}

// writers returns the field managers whose managedFields entry is new or got a new timestamp in
// cur: the writer of cur (entries that only lost fields to it keep their time).
func writers(prev, cur *unstructured.Unstructured) []string {
	before := map[string]string{}
	for _, e := range prev.GetManagedFields() {
		before[e.Manager+"|"+string(e.Operation)+"|"+e.Subresource] = stamp(e.Time)
	}
	seen := map[string]bool{}
	var out []string
	for _, e := range cur.GetManagedFields() {
		t, ok := before[e.Manager+"|"+string(e.Operation)+"|"+e.Subresource]
		if (!ok || t != stamp(e.Time)) && !seen[e.Manager] {
			seen[e.Manager] = true
			out = append(out, e.Manager)
		}
	}
	return out
}

func stamp(t *metav1.Time) string {
	if t == nil {
		return ""
	}
	return t.UTC().String()
}

// overlaps reports whether p, an ancestor of p or a descendant of p is in paths.
func overlaps(paths []fielddiff.Path, p fielddiff.Path) bool {
	for _, q := range paths {
		if p.HasPrefix(q) || q.HasPrefix(p) {
			return true
		}
	}
	return false
}
