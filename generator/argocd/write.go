package argocd

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/rebasegen/rebasegen/internal/escape"
)

// Format is what Write writes.
type Format string

const (
	// Application: an Application holding only spec.ignoreDifferences, one entry per resource
	// (a merge patch: kubectl patch application NAME --type merge --patch-file FILE).
	Application Format = "application"
	// ArgoCDCM: argocd-cm's resource.customizations.ignoreDifferences.<group_kind> keys. They
	// apply to every resource of the kind (argocd-cm names no resource), so each kind's entry
	// holds the paths of all its resources.
	ArgoCDCM Format = "argocd-cm"
)

// Formats are the formats Write takes, the default first.
func Formats() []Format { return []Format{Application, ArgoCDCM} }

// argocd-cm's keys rebasegen reads (util/settings): a kind's ignoreDifferences by prefix, and
// the compare options.
const (
	cmKey             = "resource.customizations.ignoreDifferences."
	customizationsKey = "resource.customizations"
	compareOptionsKey = "resource.compareoptions"
)

// Write writes the ignores in format f, after the comment lines of header; app names the
// Application as a tracking id does: its name, in namespace argocd, or namespace_name for one in
// another namespace (apps in any namespace).
func Write(w io.Writer, ignores []Ignore, f Format, app string, header []string) error {
	return write(w, ignores, f, app, header, false)
}

// write is Write; keep: the Application written sets the sync option RespectIgnores too
// (Generate's, where a controller owns a field the manifest declares and an ignore takes).
func write(w io.Writer, ignores []Ignore, f Format, app string, header []string, keep bool) error {
	var doc any
	switch f {
	case Application:
		entries := make([]any, len(ignores))
		for i, ig := range ignores {
			entries[i] = ig
		}
		ref := splitApp(app, defaultControlPlane)
		spec := map[string]any{"ignoreDifferences": entries}
		if keep {
			spec["syncPolicy"] = map[string]any{"syncOptions": []string{RespectIgnores}}
		}
		doc = map[string]any{"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
			"metadata": map[string]any{"name": ref.name, "namespace": ref.namespace},
			"spec":     spec}
	case ArgoCDCM:
		data := map[string]string{}
		for _, k := range kinds(ignores) {
			body, err := yaml.Marshal(k.diff)
			if err != nil {
				return err
			}
			data[k.key] = string(body)
		}
		doc = map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": "argocd-cm", "namespace": "argocd", "labels": map[string]any{"app.kubernetes.io/part-of": "argocd"}},
			"data":     data}
	default:
		return fmt.Errorf("--output %s: not an Argo CD format (%s)", f, strings.Join(formatNames(), ", "))
	}
	body, err := yaml.Marshal(doc)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	for _, h := range header {
		b.WriteString("# " + escape.Text(h) + "\n") // a file name in it may hold a newline
	}
	b.Write(body)
	if keep { // after the body, so that no entry moves to another line than the verdict's
		b.WriteString("# " + keepNote + "\n")
	}
	_, err = w.Write(b.Bytes())
	return err
}

// keepNote is the file's comment on the sync option write sets: kubectl patch --type merge
// replaces a list whole, so the file's syncOptions replace the Application's.
const keepNote = "spec.syncPolicy.syncOptions: " + RespectIgnores + ", so that a sync keeps the value a controller sets where an ignore takes a field the manifest declares (a merge patch replaces the list: add the Application's other sync options to it)."

func formatNames() []string {
	var out []string
	for _, f := range Formats() {
		out = append(out, string(f))
	}
	return out
}

// kindDiff is one argocd-cm key and its value.
type kindDiff struct {
	key  string
	diff map[string][]string
}

// kinds merges the ignores by group and kind, for argocd-cm, in key order.
func kinds(ignores []Ignore) []kindDiff {
	by := map[string]map[string][]string{}
	for _, ig := range ignores {
		key := cmKey + ig.Kind
		if ig.Group != "" {
			key = cmKey + ig.Group + "_" + ig.Kind
		}
		if by[key] == nil {
			by[key] = map[string][]string{}
		}
		d := by[key]
		d["jsonPointers"] = append(d["jsonPointers"], ig.JSONPointers...)
		d["jqPathExpressions"] = append(d["jqPathExpressions"], ig.JQPathExpressions...)
	}
	var out []kindDiff
	for key, d := range by {
		for k, v := range d {
			slices.Sort(v)
			if v = slices.Compact(v); len(v) == 0 {
				delete(d, k)
			} else {
				d[k] = v
			}
		}
		out = append(out, kindDiff{key: key, diff: d})
	}
	slices.SortFunc(out, func(a, b kindDiff) int { return strings.Compare(a.key, b.key) })
	return out
}
