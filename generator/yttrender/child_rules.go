package yttrender

// Evaluating ytt rebase rules in a child process whose memory the kernel bounds, as packages
// render (child.go): kapp's engine evaluates a hand-written rule on every resource it matches,
// under both bases and for every mutation, and a rule that allocates on one of them only (a
// string of a gigabyte per resource of some kind) grew rebasegen's own process to 6 GB
// (probe7 D3). One child serves every evaluation in turn (starting one per evaluation would cost
// a process start each), and one over the budget dies without taking rebasegen with it.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	cmdtpl "carvel.dev/ytt/pkg/cmd/template"
	"carvel.dev/ytt/pkg/cmd/ui"
	"carvel.dev/ytt/pkg/files"

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
	return serveChild("ytt rule child", budget, func(in io.Reader, out io.Writer) error {
		dec, enc := json.NewDecoder(in), json.NewEncoder(out)
		for {
			var req ruleRequest
			if err := dec.Decode(&req); err != nil {
				if errors.Is(err, io.EOF) {
					return nil
				}
				return fmt.Errorf("reading a request: %w", err)
			}
			var res ruleResult
			var evalErr error
			if req.Trace {
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
			if err := enc.Encode(res); err != nil {
				return err
			}
		}
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

// ruleChild is the running rule child.
type ruleChild struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *json.Decoder
	result *os.File
	stderr *head
	budget uint64
}

var (
	ruleMu   sync.Mutex // one evaluation at a time (kapp's engine serialises ytt anyway)
	rules    *ruleChild
	ruleProc atomic.Pointer[os.Process] // for StopRuleChild, which must not wait for ruleMu
)

func startRuleChild(budget uint64) (*ruleChild, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	c := &ruleChild{cmd: exec.Command(exe), result: r, out: json.NewDecoder(r), stderr: &head{}, budget: budget}
	c.cmd.Env = append(os.Environ(), ruleChildEnv+"="+strconv.FormatUint(budget, 10))
	c.cmd.Stderr = c.stderr
	c.cmd.ExtraFiles = []*os.File{w}
	if c.in, err = c.cmd.StdinPipe(); err != nil {
		r.Close()
		w.Close()
		return nil, err
	}
	if err := c.cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return nil, err
	}
	w.Close()
	ruleProc.Store(c.cmd.Process)
	return c, nil
}

// stop ends the child and reports how it ended.
func (c *ruleChild) stop() error {
	c.in.Close()
	err := c.cmd.Wait()
	c.result.Close()
	ruleProc.CompareAndSwap(c.cmd.Process, nil)
	return err
}

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
	ruleMu.Lock()
	defer ruleMu.Unlock()
	if rules != nil && rules.budget != budget {
		_ = rules.stop()
		rules = nil
	}
	if rules == nil {
		c, err := startRuleChild(budget)
		if err != nil {
			return ruleResult{}, fmt.Errorf("starting the ytt rule process: %w", err)
		}
		rules = c
	}
	c := rules
	var res ruleResult
	err := json.NewEncoder(c.in).Encode(req)
	if err == nil {
		err = c.out.Decode(&res)
	}
	if err != nil { // the child died: over its memory, or killed (StopRuleChild)
		rules = nil
		waitErr := c.stop()
		if outOfMemory(c.stderr.b) || killed(c.cmd.ProcessState) {
			return ruleResult{}, &MemoryExceeded{Memory: budget}
		}
		return ruleResult{}, fmt.Errorf("the ytt rule process failed (%v): %s", waitErr, c.stderr.first())
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
	done := make(chan error, 1)
	go func() {
		_, err := inRuleChild(req, limits.memory)
		done <- err
	}()
	result := func(err error) error {
		if errors.As(err, new(*MemoryExceeded)) {
			return overBudget(label, limits.memory)
		}
		if err != nil {
			return fmt.Errorf("rendering %s with ytt: %w", label, err)
		}
		return nil
	}
	timer := time.NewTimer(limits.timeout)
	defer timer.Stop()
	select {
	case err := <-done:
		return result(err)
	case <-timer.C:
	}
	select {
	case err := <-done: // done meanwhile: the child may serve another evaluation already
		return result(err)
	default:
	}
	// the evaluation holds ruleMu until it sees its child die: killed, unless it had yet to
	// start it, then again
	for {
		StopRuleChild()
		select {
		case <-done:
			return timedOut(label, limits.timeout)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// StopRuleChild kills the rule child, if one runs: an evaluation abandoned for its time budget
// must not run on.
func StopRuleChild() {
	if p := ruleProc.Load(); p != nil {
		_ = p.Kill()
	}
}
