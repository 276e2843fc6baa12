package classify

// Maps of which the API server allows one handler.

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/load"
)

// handlers are maps of which an object holds exactly one (the API server refuses more), by the
// map holding them: a webhook's clientConfig calls a service or a URL (k8s.io/kubernetes v1.37.2
// pkg/apis/admissionregistration/validation/validation.go validateValidatingWebhook and validateMutatingWebhook: "exactly
// one of url or service is required"); a container's probe and lifecycle hook run one handler
// (pkg/apis/core/validation/validation.go validateHandler: "may not specify more than 1 handler
// type", for a probe's ProbeHandler, handlerFromProbe, and postStart and preStop,
// handlerFromLifecycle).
var handlers = map[string][]string{
	"clientConfig":   {"service", "url"},
	"livenessProbe":  probeHandlers,
	"readinessProbe": probeHandlers,
	"startupProbe":   probeHandlers,
	"postStart":      lifecycleHandlers,
	"preStop":        lifecycleHandlers,
}

var (
	probeHandlers     = []string{"exec", "httpGet", "tcpSocket", "grpc"}
	lifecycleHandlers = []string{"exec", "httpGet", "tcpSocket", "sleep"}
)

// Handlers returns, for a path, the other handlers beside the one it leads into: the parent map
// of the handlers and their keys; ok false where the path leads into no handler. synth gates
// its copies with the same table, check says with it that an object kapp applies holds two.
func Handlers(p fielddiff.Path) (parent fielddiff.Path, others []string, ok bool) {
	for i := 0; i+1 < len(p); i++ {
		if p[i].FieldName == nil || p[i+1].FieldName == nil {
			continue
		}
		keys, known := handlers[*p[i].FieldName]
		if !known || !slices.Contains(keys, *p[i+1].FieldName) {
			continue
		}
		for _, k := range keys {
			if k != *p[i+1].FieldName {
				others = append(others, k)
			}
		}
		return p[:i+1], others, true
	}
	return nil, nil, false
}

// twoHandlers is an error naming desired's first map of the handlers table that declares more
// than one handler (a readinessProbe with httpGet and tcpSocket), which the API server refuses:
// kapp's deploy of the manifest fails, whatever the rules (newcomer10 N10-1: check called the
// second handler a change kapp applies). Only kinds the API server's own code validates (a
// custom resource's schema may allow anything); nil where none.
func twoHandlers(desired load.Object) error {
	if !legacyscheme.Scheme.Recognizes(desired.GroupVersionKind()) {
		return nil
	}
	var walk func(v any, p fielddiff.Path) error
	walk = func(v any, p fielddiff.Path) error {
		switch x := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				q := append(slices.Clip(p), fieldpath.PathElement{FieldName: &k})
				if hs, ok := handlers[k]; ok {
					if m, isMap := x[k].(map[string]any); isMap {
						var declared []string
						for _, h := range hs {
							if m[h] != nil {
								declared = append(declared, h)
							}
						}
						if len(declared) > 1 {
							return &load.Error{Source: desired.Source, Field: fielddiff.ByKey(desired.Unstructured, q).String(),
								Msg: fmt.Sprintf("declares %s: the API server refuses more than one of %s in a %s, so kapp's deploy of it fails; keep one", strings.Join(declared, " and "), strings.Join(hs, ", "), k)}
						}
					}
				}
				if err := walk(x[k], q); err != nil {
					return err
				}
			}
		case []any:
			for i := range x {
				if err := walk(x[i], append(slices.Clip(p), fieldpath.PathElement{Index: &i})); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk(desired.Object, nil)
}
