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
	"github.com/rebasegen/rebasegen/internal/words"
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

// switches are maps holding their one handler, rollingUpdate, only while a field of theirs,
// type, names it: a Deployment's strategy, a StatefulSet's and a DaemonSet's updateStrategy. The
// API server's defaulting sets rollingUpdate only for type RollingUpdate, the default
// (k8s.io/kubernetes v1.37.2 pkg/apis/apps/v1/defaults.go SetDefaults_Deployment,
// SetDefaults_StatefulSet, SetDefaults_DaemonSet), and its validation refuses rollingUpdate beside
// another type in a Deployment (pkg/apis/apps/validation/validation.go ValidateDeploymentStrategy:
// "may not be specified when strategy `type` is 'Recreate'") and a StatefulSet
// (ValidateStatefulSetSpec: "only allowed for updateStrategy 'RollingUpdate'"); a DaemonSet's
// OnDelete keeps it (ValidateDaemonSetUpdateStrategy). kapp's path matchers cannot test a value,
// so a copy of rollingUpdate from the live object acts whatever the type (probe13 P13-1).
var switches = map[string]Switch{
	"strategy":       {Handler: "rollingUpdate", By: "type", Value: "RollingUpdate", Refused: []string{"apps/Deployment"}},
	"updateStrategy": {Handler: "rollingUpdate", By: "type", Value: "RollingUpdate", Refused: []string{"apps/StatefulSet"}},
}

// Switch is a map holding its handler only while the field By holds Value (the server's default
// where By is absent).
type Switch struct {
	Handler, By, Value string
	Refused            []string // group/kind of the kinds whose validation refuses Handler beside another value
}

// Switched returns, for a path leading to a switch's handler, into it, or to its field By, the
// path of the map and the switch; ok false for any other path.
func Switched(p fielddiff.Path) (parent fielddiff.Path, s Switch, ok bool) {
	for i := 0; i+1 < len(p); i++ {
		if p[i].FieldName == nil || p[i+1].FieldName == nil {
			continue
		}
		s, known := switches[*p[i].FieldName]
		if known && (*p[i+1].FieldName == s.Handler || *p[i+1].FieldName == s.By && i+2 == len(p)) {
			return p[:i+1], s, true
		}
	}
	return nil, Switch{}, false
}

// Other returns the value of By in obj's map at parent, a switch's map, where it names another
// handler than s's (By absent is the default, Value: s's own); ok false otherwise.
func (s Switch) Other(obj map[string]any, parent fielddiff.Path) (string, bool) {
	v, _ := parent.GetDeclared(obj)
	m, _ := v.(map[string]any) // nil where there is no map: it holds nothing
	v, declared := m[s.By]
	return fmt.Sprint(v), declared && v != s.Value
}

// switchedAway says, for d, a field only the live object holds at or in a switch's handler, why
// the update removes it where the manifest's switch names another handler than the live one's
// (Git switched a Deployment's strategy to Recreate): the server neither keeps nor defaults it
// for that value, and a copy of it is refused (switches). ok false otherwise.
func switchedAway(fc fieldContext, d fielddiff.Delta) (string, bool) {
	parent, s, ok := Switched(d.Path)
	if !ok || d.Change != fielddiff.Added || len(d.Path) == len(parent)+1 && *d.Path[len(parent)].FieldName == s.By {
		return "", false
	}
	other, switched := s.Other(fc.desired.Object, parent)
	if _, live := s.Other(fc.live.Object, parent); !switched || live {
		return "", false
	}
	return fmt.Sprintf("the manifest's %s.%s is %s, for which the API server's defaulting sets no %s (only for %s): %s's update removes it", parent, s.By, other, s.Handler, s.Value, fc.lastApply.deploy), true
}

// RefusedBy reports whether the API server refuses s's handler beside another value in an
// object of group and kind.
func (s Switch) RefusedBy(group, kind string) bool {
	return slices.Contains(s.Refused, group+"/"+kind)
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
								Msg: fmt.Sprintf("declares %s: the API server refuses more than one of %s in %s, so kapp's deploy of it fails; keep one", strings.Join(declared, " and "), strings.Join(hs, ", "), words.A(k))}
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
