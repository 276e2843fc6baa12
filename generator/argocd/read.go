package argocd

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	resourceutil "github.com/argoproj/argo-cd/gitops-engine/v3/pkg/sync/resource"
	"github.com/argoproj/argo-cd/v3/common"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/argoproj/argo-cd/v3/util/settings"
	"github.com/itchyny/gojq"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/rebasegen/rebasegen/generator/lint"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/verdict"
	"github.com/rebasegen/rebasegen/internal/escape"
)

// Read reads the Argo CD diff settings among objs: Applications' spec.ignoreDifferences and
// argocd-cm ConfigMaps' resource.customizations (the whole key and the per-kind keys, as Argo
// CD's settings read them), resource.compareoptions and resource filter (readFilter). Other objects are an error naming them, and so is a second argocd-cm:
// Argo CD reads the one in the namespace it runs in, so merging two would judge settings no Argo
// CD has. r reads the files objs came from again for each entry's line, as the kapp target finds
// its rules' (lint.Lines); nil for objects read from no file (each entry then at its document's
// line).
func Read(objs []load.Object, r *load.Reader) (Settings, error) {
	var s Settings
	lines := lint.NewLines(r)
	var cm *load.Object
	for _, o := range objs {
		switch {
		case o.GetKind() == "Application" && strings.HasPrefix(o.GetAPIVersion(), "argoproj.io/"):
			raw, _, err := unstructuredSlice(o.Object, "spec", "ignoreDifferences")
			if err != nil {
				return Settings{}, fmt.Errorf("%s: spec.ignoreDifferences: %w", o.Source, err)
			}
			if err := s.recordSync(o); err != nil {
				return Settings{}, err
			}
			if serverSideDiff(o) {
				return Settings{}, fmt.Errorf("%s: Application %s asks for server-side diff (annotation %s holding ServerSideDiff=true, or sync option ServerSideApply=true, which Argo CD v3 diffs server-side): Argo CD then compares the result of a dry-run apply the API server makes, which rebasegen cannot make offline (it judges the client-side diff): not judged",
					o.Source, o.GetName(), common.AnnotationCompareOptions)
			}
			ignores := make([]Ignore, len(raw))
			for i, entry := range raw {
				if err := decodeEntry(entry, &ignores[i]); err != nil {
					return Settings{}, fmt.Errorf("%s: spec.ignoreDifferences[%d]%w", o.Source, i, err)
				}
			}
			for i, ig := range ignores {
				if ig.Kind == "" {
					return Settings{}, fmt.Errorf("%s: spec.ignoreDifferences[%d]: kind is required", o.Source, i)
				}
				if err := compiles(ig.JQPathExpressions); err != nil {
					return Settings{}, fmt.Errorf("%s: spec.ignoreDifferences[%d].%w", o.Source, i, err)
				}
			}
			s.Ignores = append(s.Ignores, ignores...)
			for i := range ignores {
				s.ignoresAt = append(s.ignoresAt, verdict.RuleAt{File: o.Source.File, Doc: o.Source.Doc,
					Line: lines.At(o, "spec", "ignoreDifferences", i), Key: fmt.Sprintf("spec.ignoreDifferences[%d]", i)})
				s.ignoresOf = append(s.ignoresOf, appRef{name: o.GetName(), namespace: o.GetNamespace()})
			}
		case o.GetKind() == "ConfigMap" && o.GetAPIVersion() == "v1" && o.GetName() == "argocd-cm":
			if cm != nil {
				return Settings{}, fmt.Errorf("%s: a second argocd-cm (namespace %q; the first: %s, namespace %q): Argo CD reads only the one in the namespace it runs in: give that one",
					o.Source, o.GetNamespace(), cm.Source, cm.GetNamespace())
			}
			cm = &o
			s.controlPlane = o.GetNamespace()
			data, _, err := unstructuredMap(o.Object, "data")
			if err != nil {
				return Settings{}, fmt.Errorf("%s: data: %w", o.Source, err)
			}
			if s.Overrides == nil {
				s.Overrides, s.overridesAt = map[string]v1alpha1.ResourceOverride{}, map[string]verdict.RuleAt{}
			}
			if whole, ok := data[customizationsKey].(string); ok && whole != "" {
				if err := yaml.Unmarshal([]byte(whole), &s.Overrides); err != nil {
					return Settings{}, fmt.Errorf("%s: data[\"resource.customizations\"]: %w", o.Source, err)
				}
				for k := range s.Overrides {
					s.overridesAt[k] = verdict.RuleAt{File: o.Source.File, Doc: o.Source.Doc,
						Line: lines.At(o, "data", customizationsKey, k), Key: fmt.Sprintf("data[%q] %s", customizationsKey, k)}
				}
			}
			if v, ok := data[compareOptionsKey]; ok {
				str, isString := v.(string)
				if !isString {
					return Settings{}, fmt.Errorf("%s: data[%q]: not a string", o.Source, compareOptionsKey)
				}
				opts := settings.GetDefaultDiffOptions() // settings.GetResourceCompareOptions
				if err := yaml.Unmarshal([]byte(str), &opts); err != nil {
					return Settings{}, fmt.Errorf("%s: data[%q]: %w", o.Source, compareOptionsKey, err)
				}
				s.CompareOptions = &opts
			}
			if err := s.splitKeys(o, data, lines); err != nil {
				return Settings{}, err
			}
			if s.filter, err = readFilter(o, data, lines); err != nil {
				return Settings{}, err
			}
			for _, k := range slices.Sorted(maps.Keys(data)) {
				if v, _ := data[k].(string); unjudged(k, v) {
					return Settings{}, fmt.Errorf("%s: data[%q] = %q: %s", o.Source, k, v, unjudgedWhy[k])
				}
			}
		default:
			what := strings.TrimSpace(o.GetKind() + " " + o.GetName()) // a kapp Config has no name
			hint := ""
			if load.IsKappConfig(o.GetAPIVersion(), o.GetKind()) {
				hint = ": kapp's rules are for the kapp target (leave --target argocd out)"
			}
			return Settings{}, fmt.Errorf("%s: %s is neither an Argo CD Application nor the argocd-cm ConfigMap%s", o.Source, what, hint)
		}
	}
	for _, key := range slices.Sorted(maps.Keys(s.Overrides)) {
		if err := compiles(s.Overrides[key].IgnoreDifferences.JQPathExpressions); err != nil {
			return Settings{}, fmt.Errorf("%s: argocd-cm ignoreDifferences of %s: %w", s.overridesAt[key], key, err)
		}
	}
	return s, nil
}

// writtenTo is s read back from what generate writes to file, which does not exist yet: each
// entry is in file at its line; with no file (stdout), named by its key alone (verdict.RuleAt's
// Generated), so that no finding points at a file.
func (s Settings) writtenTo(file string) Settings {
	at := func(at verdict.RuleAt) verdict.RuleAt {
		if file == "" {
			return verdict.RuleAt{Generated: true, Key: at.Key}
		}
		at.File = file
		return at
	}
	out := s
	out.ignoresAt = slices.Clone(s.ignoresAt)
	for i := range out.ignoresAt {
		out.ignoresAt[i] = at(out.ignoresAt[i])
	}
	out.overridesAt = maps.Clone(s.overridesAt)
	for k := range out.overridesAt {
		out.overridesAt[k] = at(out.overridesAt[k])
	}
	return out
}

// splitKeys reads argocd-cm's keys other than the whole resource.customizations into s's
// overrides as Argo CD's settings manager does (util/settings appendResourceOverridesFromSplitKeys):
// every key starting with resource.customizations (no dot required) split in 4 on ".", the third
// part the customization's type and the fourth the group_kind; a key of fewer parts is skipped, as
// Argo CD skips it. The types that change the comparison (ignoreDifferences, knownTypeFields)
// are judged; the others are read only as far as Argo CD fails on them. Two keys that set the
// same type for the same kind are refused: Argo CD reads them in its map's random order, so which
// one holds changes from one comparison to the next. An override's entry is where its
// ignoreDifferences are written (lines: the key's line).
func (s *Settings) splitKeys(o load.Object, data map[string]any, lines *lint.Lines) error {
	set := map[string]string{} // override key and type -> the key that set it
	for _, k := range slices.Sorted(maps.Keys(data)) {
		if !strings.HasPrefix(k, customizationsKey) || k == customizationsKey {
			continue
		}
		parts := strings.SplitN(k, ".", 4)
		if len(parts) < 4 {
			continue
		}
		v, isString := data[k].(string)
		if !isString {
			return fmt.Errorf("%s: data[%q]: not a string (a YAML block: %s: |)", o.Source, k, k)
		}
		// settings.convertToOverrideKey
		key := parts[3]
		switch gk := strings.Split(parts[3], "_"); {
		case len(gk) == 2:
			key = gk[0] + "/" + gk[1]
		case len(gk) > 2 || parts[3] == "":
			return fmt.Errorf("%s: data[%q]: Argo CD refuses the key: it must be resource.customizations.<type>.<group>_<kind> or resource.customizations.<type>.<kind>", o.Source, k)
		}
		if key == "all" {
			key = "*/*"
		}
		typ := parts[2]
		if first, ok := set[key+" "+typ]; ok {
			return fmt.Errorf("%s: data[%q]: sets the %s of %s as data[%q] does: Argo CD reads argocd-cm's keys in random order, so which one it uses changes from one comparison to the next; keep one", o.Source, k, typ, key, first)
		}
		set[key+" "+typ] = k
		ov := s.Overrides[key]
		switch typ {
		case "health", "actions": // Lua scripts: no part of the comparison
			continue
		case "useOpenLibs":
			if _, err := strconv.ParseBool(v); err != nil {
				return fmt.Errorf("%s: data[%q]: Argo CD fails on it: %w", o.Source, k, err)
			}
			continue
		case "ignoreResourceUpdates": // which watch events refresh the Application, not the comparison
			var d v1alpha1.OverrideIgnoreDiff
			if err := yaml.Unmarshal([]byte(v), &d); err != nil {
				return fmt.Errorf("%s: data[%q]: Argo CD fails on it: %w", o.Source, k, err)
			}
			continue
		case "ignoreDifferences":
			var d v1alpha1.OverrideIgnoreDiff
			if err := yaml.UnmarshalStrict([]byte(v), &d); err != nil {
				return fmt.Errorf("%s: data[%q]: %w", o.Source, k, err)
			}
			ov.IgnoreDifferences = d
			s.overridesAt[key] = verdict.RuleAt{File: o.Source.File, Doc: o.Source.Doc, Line: lines.At(o, "data", k), Key: fmt.Sprintf("data[%q]", k)}
		case "knownTypeFields":
			var fields []v1alpha1.KnownTypeField
			if err := yaml.UnmarshalStrict([]byte(v), &fields); err != nil {
				return fmt.Errorf("%s: data[%q]: %w", o.Source, k, err)
			}
			ov.KnownTypeFields = fields
			if _, ok := s.overridesAt[key]; !ok {
				s.overridesAt[key] = verdict.RuleAt{File: o.Source.File, Doc: o.Source.Doc, Line: lines.At(o, "data", k), Key: fmt.Sprintf("data[%q]", k)}
			}
		default:
			return fmt.Errorf("%s: data[%q]: Argo CD refuses the key: resource customization type %s not supported (health, useOpenLibs, actions, ignoreDifferences, ignoreResourceUpdates, knownTypeFields)", o.Source, k, typ)
		}
		s.Overrides[key] = ov
	}
	return nil
}

// serverSideDiff reports whether Argo CD diffs app's objects server-side whatever its controller's
// flag says (controller/state.go shouldUseServerSideDiff): its compare-options annotation holds
// ServerSideDiff=true, or its sync options ServerSideApply=true, and not ServerSideDiff=false.
func serverSideDiff(app load.Object) bool {
	if resourceutil.HasAnnotationOption(app, common.AnnotationCompareOptions, "ServerSideDiff=false") {
		return false
	}
	opts, _, _ := unstructuredSlice(app.Object, "spec", "syncPolicy", "syncOptions")
	return resourceutil.HasAnnotationOption(app, common.AnnotationCompareOptions, "ServerSideDiff=true") || slices.Contains(opts, any("ServerSideApply=true"))
}

// unjudgedWhy are argocd-cm's keys that change Argo CD's comparison in a way rebasegen does not
// model, with why: a value other than the one rebasegen judges is refused (unjudged).
var unjudgedWhy = map[string]string{
	"application.resourceTrackingMethod": "Argo CD then tracks objects by label, which rebasegen's comparison does not stamp (it judges annotation tracking, Argo CD's default): not judged",
	"controller.diff.server.side":        "server-side diff (Argo CD reads it from argocd-cmd-params-cm): Argo CD then compares the result of a dry-run apply the API server makes, which rebasegen cannot make offline (it judges the client-side diff): not judged",
}

// unjudged reports whether argocd-cm's key k with value v asks Argo CD for a comparison rebasegen
// does not make.
func unjudged(k, v string) bool {
	switch k {
	case "application.resourceTrackingMethod":
		return v != "" && v != string(v1alpha1.TrackingMethodAnnotation)
	case "controller.diff.server.side":
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		return err != nil || b
	}
	return false
}

// decodeEntry decodes one entry of an Application's spec.ignoreDifferences as the API server
// stores it and Argo CD reads it: keys match case-sensitively (sigs.k8s.io/json, apimachinery's
// decoder), so a key spelled in another case is one the CRD's schema prunes (kubectl: unknown
// field). Such a key is an error naming it: with encoding/json's case-insensitive match it would
// be judged as the field it resembles, which the cluster never holds.
func decodeEntry(entry any, ig *Ignore) error {
	b, err := json.Marshal(entry)
	if err != nil {
		return fmt.Errorf(": %w", err)
	}
	strict, err := sigsjson.UnmarshalStrict(b, ig, sigsjson.DisallowUnknownFields)
	if err != nil {
		return fmt.Errorf(": %w", err)
	}
	for _, e := range strict {
		field := e.Error()
		if fe, ok := e.(sigsjson.FieldError); ok {
			field = fe.FieldPath()
		}
		return fmt.Errorf(".%s: not a key of an ignoreDifferences entry (they are case-sensitive: the API server drops this one, and Argo CD never sees it)", escape.Text(field))
	}
	return nil
}

// compiles reports the first of exprs that Argo CD's ignore normalizer cannot compile (it
// compiles del(EXPR) with gojq, and then fails the whole Application's comparison).
// An expression past maxJQBytes or nested past maxJQDepth is refused before it is parsed: gojq's
// parser and compiler take memory in proportion to the nesting, and Argo CD compiles every
// expression again for each comparison.
func compiles(exprs []string) error {
	for i, e := range exprs {
		if len(e) > maxJQBytes {
			return fmt.Errorf("jqPathExpressions[%d]: %d bytes long, past rebasegen's bound of %d bytes for a jq expression", i, len(e), maxJQBytes)
		}
		if d := jqDepth(e); d > maxJQDepth {
			return fmt.Errorf("jqPathExpressions[%d]: nested %d levels deep, past rebasegen's bound of %d levels for a jq expression", i, d, maxJQDepth)
		}
		q, err := gojq.Parse("del(" + e + ")")
		if err == nil {
			_, err = gojq.Compile(q)
		}
		if err != nil {
			return fmt.Errorf("jqPathExpressions[%d] %q: does not compile as jq: %w", i, e, err)
		}
		if name, what := jqReadsOutside(q); name != "" {
			return fmt.Errorf("jqPathExpressions[%d] %q: calls %s, which reads %s, not the object: what it ignores then changes with each comparison Argo CD makes, and check judges only the one it runs", i, e, name, what)
		}
	}
	return nil
}

// Bounds of a jq expression in an ignore: far past any path expression (a few levels, a few
// hundred bytes).
const (
	maxJQBytes = 64 << 10
	maxJQDepth = 1000
)

// jqDepth is the deepest nesting of brackets ((), [], {}) in a jq expression, outside string
// literals.
func jqDepth(e string) int {
	depth, deepest, inString := 0, 0, false
	for i := 0; i < len(e); i++ {
		switch c := e[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '(' || c == '[' || c == '{':
			depth++
			deepest = max(deepest, depth)
		case c == ')' || c == ']' || c == '}':
			depth--
		}
	}
	return deepest
}

func unstructuredSlice(obj map[string]any, fields ...string) ([]any, bool, error) {
	v, ok := walk(obj, fields)
	l, isList := v.([]any)
	if ok && !isList && v != nil {
		return nil, false, fmt.Errorf("not a list")
	}
	return l, ok, nil
}

func unstructuredMap(obj map[string]any, fields ...string) (map[string]any, bool, error) {
	v, ok := walk(obj, fields)
	m, isMap := v.(map[string]any)
	if ok && !isMap && v != nil {
		return nil, false, fmt.Errorf("not a map")
	}
	return m, ok, nil
}

func walk(obj map[string]any, fields []string) (any, bool) {
	var cur any = obj
	for _, f := range fields {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[f]; !ok {
			return nil, false
		}
	}
	return cur, true
}
