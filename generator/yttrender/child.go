package yttrender

// Rendering a package in a child process whose memory the kernel bounds (internal/child): ytt
// cannot be cancelled and a template can allocate without bound; the parent turns the child's
// death into the error an over-budget render gets.

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
	"github.com/rebasegen/rebasegen/internal/child"
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
		childRenders.Store(child.Bounded)
		return
	}
	os.Exit(serveRender(budget))
}

// renderRequest is what the parent sends the child on its standard input.
type renderRequest struct {
	Package Package
	Read    yttInput // what the render reads: the parent reads it (load.Reader)
	Yield   yield
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
	return child.Serve("render child", budget, func(in io.Reader, out io.Writer) error {
		var req renderRequest
		if err := json.NewDecoder(in).Decode(&req); err != nil {
			return fmt.Errorf("reading the request: %w", err)
		}
		var res renderResult
		r, err := req.Package.render(req.Read, req.Yield, req.Output)
		if err != nil {
			res.Err = err.Error()
		}
		res.Name, res.Rendered, res.From = r.name, r.yaml, r.from
		return json.NewEncoder(out).Encode(res)
	})
}

// renderInChild renders the package in a child process of this executable, within limits: a child
// that runs out of its memory or time is killed, and the error names the package and the limit,
// as an in-process render's does.
func (p Package) renderInChild(in yttInput, y yield, limits renderLimits) (rendering, error) {
	name := p.label()
	exe, err := os.Executable()
	if err != nil {
		return rendering{}, fmt.Errorf("rendering %s with ytt: %w", name, err)
	}
	req, err := json.Marshal(renderRequest{Package: p, Read: in, Yield: y, Output: limits.output})
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
	var stderr child.Head
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
		if child.OutOfMemory(stderr.Bytes()) || child.Killed(cmd.ProcessState) {
			return rendering{}, overBudget(name, limits.memory)
		}
		return rendering{}, fmt.Errorf("rendering %s with ytt: the render process failed (%v): %s", name, waitErr, stderr.First())
	}
	if res.Err != "" {
		return rendering{}, errors.New(res.Err)
	}
	return rendering{name: res.Name, yaml: res.Rendered, from: res.From}, nil
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
