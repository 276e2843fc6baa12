package child

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
)

// Server is a child that serves requests in turn, started on first use: starting one per request
// would cost a process start each. One request over the budget kills it (the next request starts
// another) without taking this process with it. Its serving side is Serve with a loop that
// decodes each request (JSON) from standard input and encodes its result to the result pipe, and
// ends when standard input ends.
type Server struct {
	Env string // the environment variable that makes the executable serve as this child
	Who string // names it in errors: "the ytt rule process"

	mu   sync.Mutex // one request at a time
	c    *running
	proc atomic.Pointer[os.Process] // for Kill, which must not wait for mu
}

// running is a started child.
type running struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *json.Decoder
	result *os.File
	stderr *Head
	budget uint64
}

func (s *Server) start(budget uint64) (*running, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	c := &running{cmd: exec.Command(exe), result: r, out: json.NewDecoder(r), stderr: &Head{}, budget: budget}
	c.cmd.Env = append(os.Environ(), s.Env+"="+strconv.FormatUint(budget, 10))
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
	s.proc.Store(c.cmd.Process)
	return c, nil
}

// stop ends the child and reports how it ended.
func (s *Server) stop(c *running) error {
	c.in.Close()
	err := c.cmd.Wait()
	c.result.Close()
	s.proc.CompareAndSwap(c.cmd.Process, nil)
	return err
}

// Call sends req to the child, started with a budget of budget bytes (a child of another budget
// is replaced), and decodes its result into res. A child that dies meanwhile, over its memory or
// killed (Kill), gives a *MemoryExceeded; one that fails otherwise an error quoting its stderr.
func (s *Server) Call(req, res any, budget uint64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.c != nil && s.c.budget != budget {
		_ = s.stop(s.c)
		s.c = nil
	}
	if s.c == nil {
		c, err := s.start(budget)
		if err != nil {
			return fmt.Errorf("starting %s: %w", s.Who, err)
		}
		s.c = c
	}
	c := s.c
	err := json.NewEncoder(c.in).Encode(req)
	if err == nil {
		err = c.out.Decode(res)
	}
	if err != nil { // the child died: over its memory, or killed
		s.c = nil
		waitErr := s.stop(c)
		if OutOfMemory(c.stderr.Bytes()) || Killed(c.cmd.ProcessState) {
			return &MemoryExceeded{Memory: budget}
		}
		return fmt.Errorf("%s failed (%v): %s", s.Who, waitErr, c.stderr.First())
	}
	return nil
}

// Kill kills the child, if one runs: a request abandoned for its time budget must not run on.
func (s *Server) Kill() {
	if p := s.proc.Load(); p != nil {
		_ = p.Kill()
	}
}

// Process is the running child's process, nil when none runs.
func (s *Server) Process() *os.Process { return s.proc.Load() }

// Loop is a Server's serving side: each request on in handled in turn and its result written to
// out, until in ends.
func Loop[Req, Res any](in io.Reader, out io.Writer, handle func(Req) Res) error {
	dec, enc := json.NewDecoder(in), json.NewEncoder(out)
	for {
		var req Req
		if err := dec.Decode(&req); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("reading a request: %w", err)
		}
		if err := enc.Encode(handle(req)); err != nil {
			return err
		}
	}
}

// ErrTimeout is a request abandoned for its time budget (CallWithin).
var ErrTimeout = errors.New("not done within its time budget")

// CallWithin is Call abandoned after timeout: the child is killed (the next request starts
// another) and ErrTimeout returned.
func (s *Server) CallWithin(req, res any, budget uint64, timeout time.Duration) error {
	done := make(chan error, 1)
	go func() { done <- s.Call(req, res, budget) }()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case err := <-done:
		return err
	case <-timer.C:
	}
	select {
	case err := <-done: // done meanwhile: the child may serve another request already
		return err
	default:
	}
	// the request holds mu until it sees its child die: killed, unless it had yet to start it,
	// then again
	for {
		s.Kill()
		select {
		case <-done:
			return ErrTimeout
		case <-time.After(100 * time.Millisecond):
		}
	}
}
