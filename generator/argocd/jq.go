package argocd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/argoproj/argo-cd/v3/util/argo/normalizers"
	"github.com/argoproj/argo-cd/v3/util/glob"
	"github.com/itchyny/gojq"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Bounds of rebasegen's own jq evaluation, in gojq's steps (instructions run), which this
// machine's load does not change. Argo CD bounds an expression by its run time (1 s, past which
// it skips it); a step count stands for it here so that no verdict depends on the load:
// gojq runs about 10 million steps a second on the machine the bounds were measured on.
const (
	// maxJQSteps: an expression past it on an object rebasegen compares is not judged (Diff's
	// error): Argo CD, near ten times past its deadline there, would skip it.
	maxJQSteps = 100_000_000
	// slowJQSteps: lint reports an expression past it on a desired or live object, about a tenth
	// of what Argo CD's deadline allows: whether Argo CD applies it depends on its controller's load.
	slowJQSteps = 1_000_000
)

// errJQSteps is a jq run stopped at its step bound.
var errJQSteps = errors.New("past its step bound")

// stepContext is a context gojq's evaluation asks once per step (execute.go: it selects on Done
// before each instruction), done after limit steps. Not safe for concurrent use: one
// evaluation's.
type stepContext struct {
	context.Context
	steps, limit int
	done         chan struct{} // closed once past the limit; nil before (never ready)
}

func newStepContext(limit int) *stepContext {
	return &stepContext{Context: context.Background(), limit: limit}
}

func (c *stepContext) Done() <-chan struct{} {
	if c.steps++; c.steps > c.limit && c.done == nil {
		c.done = make(chan struct{})
		close(c.done)
	}
	return c.done
}

func (c *stepContext) Err() error {
	if c.steps > c.limit {
		return errJQSteps
	}
	return nil
}

// jqSteps runs code on obj to its end or to limit steps, and returns the steps it took and
// whether it stopped at the bound.
func jqSteps(code *gojq.Code, obj any, limit int) (int, bool) {
	ctx := newStepContext(limit)
	iter := code.RunWithContext(ctx, obj)
	for {
		v, ok := iter.Next()
		if !ok {
			break
		}
		if err, isErr := v.(error); isErr {
			if errors.Is(err, errJQSteps) {
				return ctx.steps, true
			}
			break // an error ends it, as in Argo CD's normalizer
		}
	}
	return ctx.steps, false
}

// jqPaths runs program on obj (as Argo CD's normalizer gives it: jqInput) to its end or to limit
// steps: the steps it took, and the first output that is a path of at most one element (a path
// query's selecting a whole object or a top-level field), where it stops when stopShort.
func jqPaths(program string, obj map[string]any, limit int, stopShort bool) (steps int, short []any, found bool, err error) {
	q, err := gojq.Parse(program)
	var code *gojq.Code
	if err == nil {
		code, err = gojq.Compile(q)
	}
	if err != nil {
		return 0, nil, false, err
	}
	ctx := newStepContext(limit)
	iter := code.RunWithContext(ctx, jqInput(obj))
	for {
		v, ok := iter.Next()
		if !ok {
			break
		}
		if _, isErr := v.(error); isErr {
			break // past limit, or an error, which ends it as in Argo CD's normalizer
		}
		if p, ok := v.([]any); ok && len(p) <= 1 && !found {
			short, found = p, true
			if stopShort {
				break
			}
		}
	}
	return ctx.steps, short, found, nil
}

// jqFor are the jq expressions of s's entries that apply to u, as Argo CD's ignore normalizer
// matches them (Applies).
func (s Settings) jqFor(u *unstructured.Unstructured) []string {
	gvk := u.GroupVersionKind()
	var out []string
	for _, ig := range s.Ignores {
		if appliesTo(ig, u) {
			out = append(out, ig.JQPathExpressions...)
		}
	}
	for key, o := range s.Overrides {
		if group, kind, ok := overrideGroupKind(key); ok && glob.Match(group, gvk.Group) && glob.Match(kind, gvk.Kind) {
			out = append(out, o.IgnoreDifferences.JQPathExpressions...)
		}
	}
	return out
}

// appliesTo reports whether the ignore entry ig selects u, as Argo CD matches an entry: group
// and kind as globs, name and namespace when given.
func appliesTo(ig Ignore, u *unstructured.Unstructured) bool {
	gvk := u.GroupVersionKind()
	return glob.Match(ig.Group, gvk.Group) && glob.Match(ig.Kind, gvk.Kind) && (ig.Name == "" || ig.Name == u.GetName()) && (ig.Namespace == "" || ig.Namespace == u.GetNamespace())
}

// jqBounded reports the first expression of s applying to the objects that runs past maxJQSteps
// on one of them, as Argo CD's normalizer runs it (del(EXPR) on the object).
func (s Settings) jqBounded(objs ...*unstructured.Unstructured) error {
	for _, u := range objs {
		for _, e := range s.jqFor(u) {
			q, err := gojq.Parse("del(" + e + ")")
			if err != nil {
				continue // Read refuses it
			}
			code, err := gojq.Compile(q)
			if err != nil {
				continue
			}
			if _, past := jqSteps(code, jqInput(u.Object), maxJQSteps); past {
				return fmt.Errorf("jq expression %q runs past rebasegen's bound of %d steps on %s %s (with a declared value changed in turn, or as written): Argo CD skips an expression past its %s deadline, so whether it applies there depends on its controller's load: not judged",
					e, maxJQSteps, u.GetKind(), u.GetName(), time.Duration(normalizers.DefaultJQExecutionTimeout))
			}
		}
	}
	return nil
}

// jqInput is obj as Argo CD's normalizer gives it to jq, decoded from its JSON: gojq takes no
// int64, the type of an integer in an object read from YAML, and panics on it (type, tojson...).
func jqInput(obj map[string]any) any {
	b, err := json.Marshal(obj)
	if err != nil {
		return obj
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		return obj
	}
	return out
}

// overrideGroupKind is an argocd-cm override key's group and kind (normalizers
// getGroupKindForOverrideKey): "group/kind", or a kind alone; false for a key of more parts.
func overrideGroupKind(key string) (group, kind string, ok bool) {
	parts := strings.Split(key, "/")
	switch len(parts) {
	case 1:
		return "", parts[0], true
	case 2:
		return parts[0], parts[1], true
	}
	return "", "", false
}

// jqOutside are the jq builtins whose result depends on something other than the object: an
// expression calling one ignores, at each comparison Argo CD makes, what check cannot judge on
// the day it runs (`if now < T then empty else .spec... end` passes check and hides every change
// from T on). Those gojq cannot compile where Argo CD runs it (input, inputs) are refused as
// not compiling; they are named here too, as are those of jq that gojq lacks.
var jqOutside = map[string]string{
	"now":            "the wall clock",
	"localtime":      "the time zone of the process",
	"strflocaltime":  "the time zone of the process",
	"input":          "the next input",
	"inputs":         "the next inputs",
	"input_filename": "the input's file name",
	"$__loc__":       "where the expression is written",
	"env":            "the process's environment",
	"$ENV":           "the process's environment",
}

// jqReadsOutside is the first builtin of jqOutside q calls, found by walking gojq's parsed
// query: a string search would also find a key (.now) or a string literal ("now").
func jqReadsOutside(q *gojq.Query) (name, what string) {
	var walk func(v reflect.Value) bool
	walk = func(v reflect.Value) bool {
		switch v.Kind() {
		case reflect.Pointer, reflect.Interface:
			if v.IsNil() {
				return false
			}
			if f, ok := v.Interface().(*gojq.Func); ok {
				if w, ok := jqOutside[f.Name]; ok {
					name, what = f.Name, w
					return true
				}
			}
			return walk(v.Elem())
		case reflect.Struct:
			for i := range v.NumField() {
				if v.Type().Field(i).IsExported() && walk(v.Field(i)) {
					return true
				}
			}
		case reflect.Slice:
			for i := range v.Len() {
				if walk(v.Index(i)) {
					return true
				}
			}
		}
		return false
	}
	walk(reflect.ValueOf(q))
	return name, what
}
