package argocd

// Argo CD's comparisons that evaluate a jq expression of the inputs run in a child process whose
// memory the kernel bounds (internal/child), as ytt rules do: gojq counts steps (jqSteps), not
// what a step allocates, and `reduce range(36) as $i ("x"; . + .)`, some 150 steps, builds a
// 64 GiB string: Go's fatal "out of memory" killed rebasegen (probe17 P17-1), or on a machine
// without a limit, whatever the kernel's OOM killer picked. Argo CD's normalizer evaluates the
// expressions on objects rebasegen never holds (the manifest with its tracking annotation, the
// last-applied copy, each after the ignores before it), so the whole comparison runs there, not
// a check of the expressions beforehand. One child serves every comparison in turn; one over its
// memory or time dies, and the comparison is an input error naming the expression.

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"time"

	gdiff "github.com/argoproj/argo-cd/gitops-engine/v3/pkg/diff"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/argoproj/argo-cd/v3/util/argo/normalizers"
	"github.com/argoproj/argo-cd/v3/util/settings"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/managedfields"

	"github.com/rebasegen/rebasegen/generator/yttrender"
	"github.com/rebasegen/rebasegen/internal/child"
)

// jqChildEnv holds, in a jq child's environment, its memory budget in bytes.
const jqChildEnv = "REBASEGEN_ARGOCD_JQ_CHILD"

var (
	// jqInChild: this executable serves jq children (JQChild was called) on an OS whose kernel
	// bounds a child's memory.
	jqInChild atomic.Bool
	jqServer  = child.Server{Env: jqChildEnv, Who: "the Argo CD jq process"}
	// jqLimits bound one comparison in the child: a package render's (tests lower them). Argo
	// CD gives an expression 1 s; a path expression on an object needs kilobytes.
	jqLimits = struct {
		memory  uint64
		timeout time.Duration
	}{yttrender.RenderMemory, yttrender.RenderTimeout}
)

// JQChild makes the executable able to run Argo CD's comparisons under jq expressions in a child
// process of itself: started as such a child, it serves them and exits; otherwise it records that
// they may run so, and returns. The rebasegen command calls it first in main, and test binaries
// that compare under jq expressions in TestMain: an executable that does not (a program using the
// library) evaluates them in its own process, their memory unbounded.
func JQChild() {
	budget, ok := os.LookupEnv(jqChildEnv)
	if !ok {
		jqInChild.Store(child.Bounded)
		return
	}
	parsers := map[[32]byte]*managedfields.GvkParser{}
	os.Exit(child.Serve("Argo CD jq child", budget, func(in io.Reader, out io.Writer) error {
		return child.Loop(in, out, func(req jqRequest) jqResult { return req.serve(parsers) })
	}))
}

// What a jq child does.
const (
	opDiff      = "diff"      // Diff's comparison (compare)
	opNormalize = "normalize" // the ignore normalizer on one object (taken)
	opPaths     = "paths"     // lint's path query (jqPaths)
)

// jqRequest is one comparison, normalization or path query.
type jqRequest struct {
	Op             string
	Desired, Live  []byte // the objects (Desired alone for opNormalize, as its object)
	Ignores        []Ignore
	Overrides      map[string]v1alpha1.ResourceOverride
	CompareOptions *settings.ArgoCDDiffOptions
	Schema         []byte // the schema Argo CD types objects with (Settings.schema), when its entries ignore by manager
	Program        string // opPaths: the jq program, run to its end or Limit steps
	Limit          int
	StopShort      bool // opPaths: stop at the first path of at most one element
}

type jqResult struct {
	Diff   *gdiff.DiffResult
	Object []byte
	Steps  int
	Short  []any // opPaths: the first path of at most one element the query selected
	Found  bool
	Err    string
}

// serve is req's result, in the child.
func (req jqRequest) serve(parsers map[[32]byte]*managedfields.GvkParser) jqResult {
	var res jqResult
	err := func() error {
		s := Settings{Ignores: req.Ignores, Overrides: req.Overrides, CompareOptions: req.CompareOptions}
		if req.Schema != nil {
			sum := sha256.Sum256(req.Schema)
			if parsers[sum] == nil {
				p, err := parseSchema(req.Schema)
				if err != nil {
					return err
				}
				parsers[sum] = p
			}
			s.gvks = parsers[sum]
		}
		desired, err := decodeObject(req.Desired)
		if err != nil {
			return err
		}
		switch req.Op {
		case opDiff:
			live, err := decodeObject(req.Live)
			if err != nil {
				return err
			}
			res.Diff, err = s.compare(desired, live)
			return err
		case opNormalize:
			n, err := s.ignorer()
			if err != nil {
				return err
			}
			if n != nil {
				if err := n.Normalize(desired); err != nil {
					return err
				}
			}
			res.Object, err = desired.MarshalJSON()
			return err
		case opPaths:
			res.Steps, res.Short, res.Found, err = jqPaths(req.Program, desired.Object, req.Limit, req.StopShort)
			return err
		}
		return fmt.Errorf("no such request %q", req.Op)
	}()
	if err != nil {
		res.Err = err.Error()
	}
	return res
}

func decodeObject(b []byte) (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{}
	if b == nil {
		return u, nil
	}
	return u, u.UnmarshalJSON(b)
}

// inChild reports whether what s applies to u evaluates a jq expression that must run in the child.
func (s Settings) inChild(u *unstructured.Unstructured) bool {
	return jqInChild.Load() && len(s.jqFor(u)) > 0
}

// request is a request of op on desired (and live) under s.
func (s Settings) request(op string, desired, live *unstructured.Unstructured) (jqRequest, error) {
	req := jqRequest{Op: op, Ignores: s.Ignores, Overrides: s.Overrides, CompareOptions: s.CompareOptions}
	for _, e := range s.entries() {
		if len(e.ManagedFieldsManagers) > 0 {
			req.Schema = s.schema
		}
	}
	var err error
	if req.Desired, err = desired.MarshalJSON(); err == nil && live != nil {
		req.Live, err = live.MarshalJSON()
	}
	return req, err
}

// call is req's result from the jq child; an expression over the child's memory or time is an
// input error naming it (overBudget), for the object u.
func (s Settings) call(req jqRequest, u *unstructured.Unstructured) (jqResult, error) {
	var res jqResult
	err := jqServer.CallWithin(req, &res, jqLimits.memory, jqLimits.timeout)
	switch {
	case overChild(err):
		return res, s.overBudget(u, overWhat(err))
	case err != nil:
		return res, err
	case res.Err != "":
		return res, errors.New(res.Err)
	}
	return res, nil
}

// overBudget is the error of a request on u that went over the child's budget (what): it names
// the jq expression that does alone, else every expression of s that applies to u.
func (s Settings) overBudget(u *unstructured.Unstructured, what string) error {
	type named struct {
		ig   Ignore
		expr string
		at   string
	}
	var exprs []named
	for _, e := range s.entries() {
		if !appliesTo(e.Ignore, u) {
			continue
		}
		for i, x := range e.JQPathExpressions {
			exprs = append(exprs, named{e.Ignore, x, fmt.Sprintf("%s.jqPathExpressions[%d] %q", e.at, i, x)})
		}
	}
	if len(exprs) > 1 {
		for _, x := range exprs {
			alone := Settings{Ignores: []Ignore{{Group: x.ig.Group, Kind: x.ig.Kind, Name: x.ig.Name, Namespace: x.ig.Namespace, JQPathExpressions: []string{x.expr}}}}
			if _, err := alone.paths("del("+x.expr+")", u.Object, maxJQSteps, false); overChild(err) {
				exprs = []named{x}
				break
			}
		}
	}
	var where []string
	for _, x := range exprs {
		where = append(where, x.at)
	}
	return fmt.Errorf("%s: Argo CD's comparison of %s %s under it %s: Argo CD gives an expression %s and skips it past that, or its controller runs out of memory first; rebasegen does not judge it",
		strings.Join(where, "; "), u.GetKind(), u.GetName(), what, time.Duration(normalizers.DefaultJQExecutionTimeout))
}

// overWhat says what a request over the child's budget needed.
func overWhat(err error) string {
	if errors.Is(err, child.ErrTimeout) {
		return fmt.Sprintf("is not done after %v (an expression that does not end?)", jqLimits.timeout)
	}
	return fmt.Sprintf("needs more than %d MiB of memory (an expression building ever larger values?)", jqLimits.memory>>20)
}

// overChild: err is a request's over the child's memory or time.
func overChild(err error) bool {
	return errors.Is(err, child.ErrTimeout) || errors.As(err, new(*child.MemoryExceeded))
}

// paths is jqPaths of program on obj, in the child where this executable serves one (its errors
// over the child's budget as child's), else in this process.
func (s Settings) paths(program string, obj map[string]any, limit int, stopShort bool) (jqResult, error) {
	if !jqInChild.Load() {
		var res jqResult
		var err error
		res.Steps, res.Short, res.Found, err = jqPaths(program, obj, limit, stopShort)
		return res, err
	}
	req, err := s.request(opPaths, &unstructured.Unstructured{Object: obj}, nil)
	if err != nil {
		return jqResult{}, err
	}
	req.Program, req.Limit, req.StopShort = program, limit, stopShort
	var res jqResult
	if err := jqServer.CallWithin(req, &res, jqLimits.memory, jqLimits.timeout); err != nil {
		return res, err
	}
	if res.Err != "" {
		return res, errors.New(res.Err)
	}
	return res, nil
}
