package lint

// kapp writes a Config's additionalLabels, with its own labels, through every ownership label rule
// of the Configs in force (resources/labeled_resources.go Prepare). Through one whose path leads
// into metadata.annotations, kapp.k14s.io/noop, kapp.k14s.io/exists or an update strategy skip
// among them lands on every resource the rule matches, and kapp then applies nothing to those
// (diff/change.go op, clusterapply/add_or_update_change.go UpdateSkipStrategy): every change made
// in Git to them is hidden.

import (
	"fmt"
	"strings"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// inertSources are, across the Configs in force (the linted documents and the package's own),
// the additionalLabels entries that make kapp apply nothing where they land in
// metadata.annotations, and the ownership label rules writing labels there, each named where it
// is written.
type inertSources struct {
	labels, rules []inertSource
}

type inertSource struct {
	doc   *doc // nil: a package Config, not linted
	where string
}

// inertLabel reports whether the label k: v, written as an annotation, makes kapp apply nothing.
func inertLabel(k string, v any) bool {
	return k == kappconv.NoopAnnotation || k == kappconv.ExistsAnnotation || k == kappconv.UpdateStrategyAnnotation && v == "skip"
}

// intoAnnotations reports whether kapp's ownership label rule with path p writes its labels into
// metadata.annotations: kapp's own mod is applied to a probe object.
func intoAnnotations(p ctlres.Path) (into bool) {
	defer func() {
		if recover() != nil {
			into = false
		}
	}()
	res := ctlres.NewResourceUnstructured(unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "probe", "labels": map[string]any{}, "annotations": map[string]any{}}}}, ctlres.ResourceType{})
	mod := ctlres.StringMapAppendMod{ResourceMatcher: ctlres.AllMatcher{}, Path: p, KVs: map[string]string{"probe": "probe"}}
	return mod.Apply(res) == nil && res.Annotations()["probe"] == "probe"
}

// readInert finds the inert sources of the linted documents and of the package's Configs (those
// not among them).
func readInert(docs []*doc, pkg []load.Object) inertSources {
	var out inertSources
	linted := map[string]bool{}
	for _, d := range docs {
		linted[d.file] = true
		c := &checker{doc: d}
		root := at{v: d.obj, n: d.node}
		labels := root.field("additionalLabels")
		m, _ := labels.v.(map[string]any)
		for _, k := range labels.keys() {
			if inertLabel(k, m[k]) {
				out.labels = append(out.labels, inertSource{d, FileLine(c.where(labels.field(k))) + " additionalLabels " + k})
			}
		}
		for i, r := range root.field("ownershipLabelRules").items() {
			var rule ctlconf.OwnershipLabelRule
			if decode(r.v, &rule) == nil && intoAnnotations(rule.Path) {
				out.rules = append(out.rules, inertSource{d, fmt.Sprintf("%s ownershipLabelRules[%d]", FileLine(c.where(r)), i)})
			}
		}
	}
	for _, o := range pkg {
		var cfg ctlconf.Config
		if linted[o.Source.File] || !load.IsKappConfig(o.GetAPIVersion(), o.GetKind()) || decode(o.Object, &cfg) != nil {
			continue
		}
		for k, v := range cfg.AdditionalLabels {
			if inertLabel(k, v) {
				out.labels = append(out.labels, inertSource{nil, fmt.Sprintf("%s additionalLabels %s", o.Source, k)})
			}
		}
		for i, r := range cfg.OwnershipLabelRules {
			if intoAnnotations(r.Path) {
				out.rules = append(out.rules, inertSource{nil, fmt.Sprintf("%s ownershipLabelRules[%d]", o.Source, i)})
			}
		}
	}
	return out
}

// inert warns at each of this document's additionalLabels entries that an ownership label rule in
// force writes into metadata.annotations where it makes kapp apply nothing, and at each of its
// ownership label rules writing such entries of other Configs there.
func (c *checker) inert(root at) {
	others := func(srcs []inertSource) []string {
		var out []string
		for _, s := range srcs {
			if s.doc != c.doc {
				out = append(out, s.where)
			}
		}
		return out
	}
	const why = "into metadata.annotations of every resource the rule matches: kapp then applies nothing to those resources (kapp.k14s.io/noop: reports noop; kapp.k14s.io/exists: keeps them as they are; update strategy skip: reports an update and skips it), and every change made in Git to them is hidden"
	if len(c.inertRules) > 0 {
		labels := root.field("additionalLabels")
		m, _ := labels.v.(map[string]any)
		for _, k := range labels.keys() {
			if inertLabel(k, m[k]) {
				c.add(Warning, labels.field(k), fmt.Sprintf("additionalLabels %s: kapp writes it through %s %s", k, c.whereAll(c.inertRules), why),
					"remove "+k+" from additionalLabels, or the ownership label rule's path into metadata.annotations")
			}
		}
	}
	if from := others(c.inertLabels); len(from) > 0 {
		for i, r := range root.field("ownershipLabelRules").items() {
			var rule ctlconf.OwnershipLabelRule
			if decode(r.v, &rule) == nil && intoAnnotations(rule.Path) {
				c.add(Warning, r, fmt.Sprintf("ownershipLabelRules[%d]: kapp writes %s through it %s", i, strings.Join(from, ", "), why),
					"keep kapp's labels out of metadata.annotations, or remove those additionalLabels")
			}
		}
	}
}

// whereAll names the sources: this document's by key and index alone, the others' with their file.
func (c *checker) whereAll(srcs []inertSource) string {
	out := make([]string, len(srcs))
	for i, s := range srcs {
		out[i] = s.where
		if s.doc == c.doc {
			out[i] = s.where[strings.LastIndex(s.where, " ")+1:]
		}
	}
	return strings.Join(out, ", ")
}
