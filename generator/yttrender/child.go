package yttrender

// Rendering a package in a child process whose memory the kernel bounds. ytt cannot be cancelled
// and a template can allocate without bound: a polled heap watch sees an allocation only after it
// is made, so one huge allocation overshoots the budget or kills the whole process. A child whose
// data segment is limited (RLIMIT_DATA: the Go heap's mappings count) fails its allocation instead,
// and the parent turns its death into the error an over-budget render gets.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/rebasegen/rebasegen/generator/load"
)

// childEnv holds, in a render child's environment, the memory budget in bytes.
const childEnv = "REBASEGEN_RENDER_CHILD"

// childRenders: this executable serves renders (RenderChild was called) on an OS whose kernel
// bounds the child's memory.
var childRenders atomic.Bool

// RenderChild makes the executable able to render packages in a child process of itself: started
// as such a child (by runWithin), it renders the package its parent sends, writes the result and
// exits; otherwise it records that renders may run so, and returns. The rebasegen command calls it
// first in main, and test binaries that render packages in TestMain: an executable that does not
// (a program using the library) renders in its own process, bounded only by the heap watch.
func RenderChild() {
	if budget, ok := os.LookupEnv(ruleChildEnv); ok {
		os.Exit(serveRules(budget))
	}
	budget, ok := os.LookupEnv(childEnv)
	if !ok {
		childRenders.Store(memoryBounded && !raceDetector)
		return
	}
	os.Exit(serveRender(budget))
}

// renderRequest is what the parent sends the child on its standard input.
type renderRequest struct {
	Package Package
	Read    yttInput // what the render reads: the parent reads it (load.Reader)
	Inspect bool
	Output  int64
}

// renderResult is what the child writes to the pipe it is given as file descriptor 3.
type renderResult struct {
	Name     string
	Rendered []byte
	From     []origin // rendering.from
	Err      string
}

// serveRender is the child: the render within budget bytes of memory more than it holds now.
func serveRender(budget string) int {
	return serveChild("render child", budget, func(in io.Reader, out io.Writer) error {
		var req renderRequest
		if err := json.NewDecoder(in).Decode(&req); err != nil {
			return fmt.Errorf("reading the request: %w", err)
		}
		var res renderResult
		r, err := req.Package.render(req.Read, req.Inspect, req.Output)
		if err != nil {
			res.Err = err.Error()
		}
		res.Name, res.Rendered, res.From = r.name, r.yaml, r.from
		return json.NewEncoder(out).Encode(res)
	})
}

// serveChild is a child's start and end: its memory limited to budget bytes more than it holds
// now, serve reads the requests on standard input and writes the results to file descriptor 3,
// the pipe its parent reads; an error is one line on standard error, which the parent quotes,
// and exit status 1.
func serveChild(who, budget string, serve func(in io.Reader, out io.Writer) error) int {
	err := func() error {
		n, err := strconv.ParseUint(budget, 10, 64)
		if err != nil {
			return err
		}
		if err := limitMemory(n); err != nil {
			return err
		}
		out := os.NewFile(3, "result")
		if out == nil {
			return errors.New("no result pipe (file descriptor 3)")
		}
		return serve(os.Stdin, out)
	}()
	if err != nil {
		fmt.Fprintf(os.Stderr, "rebasegen %s: %v\n", who, err)
		return 1
	}
	return 0
}

// renderInChild renders the package in a child process of this executable, within limits: a child
// that runs out of its memory or time is killed, and the error names the package and the limit,
// as an in-process render's does.
func (p Package) renderInChild(in yttInput, inspect bool, limits renderLimits) (rendering, error) {
	name := p.label()
	exe, err := os.Executable()
	if err != nil {
		return rendering{}, fmt.Errorf("rendering %s with ytt: %w", name, err)
	}
	req, err := json.Marshal(renderRequest{Package: p, Read: in, Inspect: inspect, Output: limits.output})
	if err != nil {
		return rendering{}, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return rendering{}, fmt.Errorf("rendering %s with ytt: %w", name, err)
	}
	defer r.Close()
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), childEnv+"="+strconv.FormatUint(limits.memory, 10))
	cmd.Stdin = bytes.NewReader(req)
	var stderr head
	cmd.Stderr = &stderr
	cmd.ExtraFiles = []*os.File{w}
	if err := cmd.Start(); err != nil {
		w.Close()
		return rendering{}, fmt.Errorf("rendering %s with ytt: %w", name, err)
	}
	w.Close()
	// the result: base64 of at most the output limit, and the error text
	read := make(chan []byte, 1)
	go func() {
		data, _ := io.ReadAll(io.LimitReader(r, limits.output/3*4+load.MaxFileSize))
		read <- data
	}()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var waitErr error
	select {
	case waitErr = <-exited:
	case <-time.After(limits.timeout):
		_ = cmd.Process.Kill()
		<-exited
		return rendering{}, timedOut(name, limits.timeout)
	}
	data := <-read
	var res renderResult
	if waitErr != nil || json.Unmarshal(data, &res) != nil {
		// an allocation over the limit: the Go runtime's fatal error ("fatal error: out of
		// memory", "runtime: out of memory: cannot allocate ..."), a new thread's stack (which
		// counts as data too: "runtime/cgo: pthread_create failed: Resource temporarily
		// unavailable"), or the kernel's OOM killer
		if outOfMemory(stderr.b) || killed(cmd.ProcessState) {
			return rendering{}, overBudget(name, limits.memory)
		}
		return rendering{}, fmt.Errorf("rendering %s with ytt: the render process failed (%v): %s", name, waitErr, stderr.first())
	}
	if res.Err != "" {
		return rendering{}, errors.New(res.Err)
	}
	return rendering{name: res.Name, yaml: res.Rendered, from: res.From}, nil
}

// outOfMemory reports whether a child's stderr says it ran out of its memory: the Go runtime's
// fatal errors for an allocation over the limit, a new thread's stack over it, or a segmentation
// violation, which the Go runtime's garbage collector (go1.27) dies of when the kernel refuses it
// memory under the limit: the child runs ytt alone, pure Go with no unsafe code, so a fault there
// is the runtime's, failing to get memory.
func outOfMemory(stderr []byte) bool {
	for _, s := range []string{"out of memory", "cannot allocate memory", "pthread_create failed"} {
		if bytes.Contains(stderr, []byte(s)) {
			return true
		}
	}
	return bytes.HasPrefix(bytes.TrimSpace(stderr), []byte("SIGSEGV: segmentation violation"))
}

func overBudget(name string, memory uint64) error {
	return budgetError{fmt.Sprintf("rendering %s with ytt: it needs more than %d MiB of memory (a template building ever larger values?)", name, memory>>20)}
}

func timedOut(name string, timeout time.Duration) error {
	return budgetError{fmt.Sprintf("rendering %s with ytt: not done after %v (a loop that does not end?)", name, timeout)}
}

// budgetError is a render abandoned for its time or memory budget.
type budgetError struct{ msg string }

func (e budgetError) Error() string { return e.msg }

// OverBudget reports whether err is a render abandoned for its time or memory budget.
func OverBudget(err error) bool { return errors.As(err, new(budgetError)) }

// head keeps the first 4 KiB written to it: a dying child's stderr starts with what went wrong
// (Go's "fatal error: out of memory", a panic's message) and goes on with every goroutine's stack.
type head struct{ b []byte }

func (h *head) Write(p []byte) (int, error) {
	if n := 4<<10 - len(h.b); n > 0 {
		h.b = append(h.b, p[:min(n, len(p))]...)
	}
	return len(p), nil
}

// first is the first line written.
func (h *head) first() string {
	line, _, _ := bytes.Cut(bytes.TrimSpace(h.b), []byte("\n"))
	return string(line)
}
