package yttrender

// Evaluating ytt rebase rules in a child process whose memory the kernel bounds, as packages
// render (child.go): kapp's engine evaluates a hand-written rule on every resource it matches,
// under both bases and for every mutation, and a rule that allocates on one of them only (a
// string of a gigabyte per resource of some kind) grew rebasegen's own process to 6 GB
// (probe7 D3). One child serves every evaluation in turn (starting one per evaluation would cost
// a process start each), and one over the budget dies without taking rebasegen with it.

import (
	"errors"
	"fmt"
	"io"

	cmdtpl "carvel.dev/ytt/pkg/cmd/template"
	"carvel.dev/ytt/pkg/cmd/ui"
	"carvel.dev/ytt/pkg/files"

	"github.com/rebasegen/rebasegen/internal/child"
	"github.com/rebasegen/rebasegen/internal/yttreads"
)

// ruleChildEnv holds, in a rule child's environment, its memory budget in bytes.
const ruleChildEnv = "REBASEGEN_YTT_RULE_CHILD"

// ruleRequest is one evaluation: the rule's overlay, the resource and the data values (its
// sources) as kapp's yttresmod writes them.
type ruleRequest struct {
	Overlay          string
	Resource, Values []byte
	Trace            bool // what the program reads is recorded (yttreads.Eval)
	// Wait: Overlay is a wait rule's starlark, only loaded (loadWaitRule)
	Wait bool
}

// ruleResult is ytt's output file (resource.yml), or what the program read, or its error.
type ruleResult struct {
	Output []byte
	Trace  *yttreads.Trace `json:",omitempty"`
	Err    string
}

// serveRules is the rule child: each request on its standard input evaluated in turn, within
// budget bytes of memory more than it holds now, each result written to file descriptor 3; it
// ends when its parent closes its standard input.
func serveRules(budget string) int {
	return child.Serve("ytt rule child", budget, func(in io.Reader, out io.Writer) error {
		return child.Loop(in, out, func(req ruleRequest) ruleResult {
			var res ruleResult
			var evalErr error
			if req.Wait {
				evalErr = loadWaitRule(req.Overlay)
			} else if req.Trace {
				var tr yttreads.Trace
				if tr, evalErr = yttreads.Eval(req.Overlay, req.Resource, req.Values); evalErr == nil {
					res.Trace = &tr
				}
			} else {
				res.Output, evalErr = evalOverlay(req)
			}
			if evalErr != nil {
				res.Err = evalErr.Error()
			}
			return res
		})
	})
}

// evalOverlay is kapp v0.66.0's yttresmod.OverlayContractV1Mod.evalYtt on the bytes it builds:
// the same files, data values and checks, with the same messages; it returns the output file's
// bytes, which the parent reads as kapp reads them.
func evalOverlay(req ruleRequest) ([]byte, error) {
	opts := cmdtpl.NewOptions()
	opts.DataValuesFlags.FromFiles = []string{"values.yml"}
	opts.DataValuesFlags.ReadFilesFunc = func(path string) ([]*files.File, error) {
		if path != "values.yml" {
			return nil, fmt.Errorf("Unknown file to read: %s", path)
		}
		return []*files.File{files.MustNewFileFromSource(files.NewBytesSource("values.yml", req.Values))}, nil
	}
	in := []*files.File{
		files.MustNewFileFromSource(files.NewBytesSource("resource.yml", req.Resource)),
		files.MustNewFileFromSource(files.NewBytesSource("overlay.yml", []byte(req.Overlay))),
	}
	out := opts.RunWithFiles(cmdtpl.Input{Files: in}, ui.NewTTY(false))
	if out.Err != nil {
		return nil, fmt.Errorf("Evaluating: %w", out.Err)
	}
	if len(out.Files) == 0 {
		return nil, fmt.Errorf("Expected to find resource.yml but saw zero files")
	}
	if f := out.Files[0]; f.RelativePath() != "resource.yml" {
		return nil, fmt.Errorf("Expected resource.yml but was: %s", f.RelativePath())
	}
	return out.Files[0].Bytes(), nil
}

// RulesInChild reports whether EvalRuleInChild can run: this executable serves renders
// (RenderChild) on an OS whose kernel bounds a child's memory.
func RulesInChild() bool { return childRenders.Load() }

// MemoryExceeded is a ytt rebase rule's evaluation that needed more than Memory bytes.
type MemoryExceeded struct{ Memory uint64 }

func (e *MemoryExceeded) Error() string {
	return fmt.Sprintf("it needs more than %d MiB of memory (a template building ever larger values?)", e.Memory>>20)
}

// rules is the rule child: one evaluation at a time (kapp's engine serialises ytt anyway).
var rules = child.Server{Env: ruleChildEnv, Who: "the ytt rule process"}

// EvalRuleInChild evaluates a ytt rebase rule's overlay on resource with the data values values
// (kapp's yttresmod files) in the rule child, started on first use, within budget bytes of memory,
// and returns ytt's output file, or its error text. An evaluation over the budget kills the child
// (the next one starts another) and returns a *MemoryExceeded.
func EvalRuleInChild(overlay string, resource, values []byte, budget uint64) ([]byte, error) {
	res, err := inRuleChild(ruleRequest{Overlay: overlay, Resource: resource, Values: values}, budget)
	return res.Output, err
}

// TraceRuleInChild is yttreads.Eval in the rule child, as EvalRuleInChild evaluates a rule.
func TraceRuleInChild(overlay string, resource, values []byte, budget uint64) (yttreads.Trace, error) {
	res, err := inRuleChild(ruleRequest{Overlay: overlay, Resource: resource, Values: values, Trace: true}, budget)
	if err != nil || res.Trace == nil {
		return yttreads.Trace{}, err
	}
	return res.Trace.Numbered(), nil
}

// inRuleChild is req's result from the rule child.
func inRuleChild(req ruleRequest, budget uint64) (ruleResult, error) {
	var res ruleResult
	if err := rules.Call(req, &res, budget); err != nil {
		if errors.As(err, new(*child.MemoryExceeded)) {
			return ruleResult{}, &MemoryExceeded{Memory: budget}
		}
		return ruleResult{}, err
	}
	if res.Err != "" {
		return ruleResult{}, errors.New(res.Err)
	}
	return res, nil
}

// evalRuleWithin is req evaluated in the rule child within limits' time and memory, its errors
// as a package render's name the rule (label): the check's own evaluations of a rule (one per
// changed manifest) started a child process each, ~40 process starts for a check of three
// Services; the rule child, started once, serves them as it serves kapp's engine's. An evaluation
// over its time kills the child (the next one starts another).
func evalRuleWithin(label string, req ruleRequest, limits renderLimits) error {
	var res ruleResult
	err := rules.CallWithin(req, &res, limits.memory, limits.timeout)
	switch {
	case errors.Is(err, child.ErrTimeout):
		return timedOut(label, limits.timeout)
	case errors.As(err, new(*child.MemoryExceeded)):
		return overBudget(label, limits.memory)
	case err != nil:
		return fmt.Errorf("rendering %s with ytt: %w", label, err)
	case res.Err != "":
		return fmt.Errorf("rendering %s with ytt: %s", label, res.Err)
	}
	return nil
}

// StopRuleChild kills the rule child, if one runs: an evaluation abandoned for its time budget
// must not run on.
func StopRuleChild() { rules.Kill() }
