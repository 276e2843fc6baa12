// Package child runs work in a child process of this executable whose memory the kernel bounds.
// Work that cannot be cancelled and can allocate without bound (a ytt template, a jq expression
// from an input) is bounded by a polled heap watch only after an allocation is made, so one huge
// allocation overshoots the budget or kills the whole process. A child whose address space is
// limited (RLIMIT_AS: the Go heap's mappings count) fails its allocation instead, and the parent
// turns its death into an error naming the work and the limit.
//
// The executable serves as a child when started with a child's environment variable set (its
// value: the budget in bytes): its main (and a test binary's TestMain) calls the serving function
// of each kind of child first, which serves and exits in a child and returns otherwise.
package child

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
)

// Bounded reports whether a child's memory can be bounded here: Linux counts a process's mappings,
// the Go heap's included, against RLIMIT_AS; the race detector's runtime maps shadow memory no
// such limit leaves room for.
const Bounded = memoryBounded && !raceDetector

// Serve is a child's start and end: its memory limited to budget bytes more than it holds now,
// serve reads the requests on standard input and writes the results to file descriptor 3, the
// pipe its parent reads; an error is one line on standard error, which the parent quotes, and
// exit status 1. who names the child there.
func Serve(who, budget string, serve func(in io.Reader, out io.Writer) error) int {
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

// OutOfMemory reports whether a child's stderr says it ran out of its memory: the Go runtime's
// fatal errors for an allocation over the limit, a new thread's stack over it (which counts as
// data too: "runtime/cgo: pthread_create failed: Resource temporarily unavailable"), or a
// segmentation violation, which the Go runtime's garbage collector (go1.27) dies of when the
// kernel refuses it memory under the limit: a child runs pure Go with no unsafe code, so a fault
// there is the runtime's, failing to get memory.
func OutOfMemory(stderr []byte) bool {
	for _, s := range []string{"out of memory", "cannot allocate memory", "pthread_create failed"} {
		if bytes.Contains(stderr, []byte(s)) {
			return true
		}
	}
	return bytes.HasPrefix(bytes.TrimSpace(stderr), []byte("SIGSEGV: segmentation violation"))
}

// Head keeps the first 4 KiB written to it: a dying child's stderr starts with what went wrong
// (Go's "fatal error: out of memory", a panic's message) and goes on with every goroutine's stack.
type Head struct{ b []byte }

func (h *Head) Write(p []byte) (int, error) {
	if n := 4<<10 - len(h.b); n > 0 {
		h.b = append(h.b, p[:min(n, len(p))]...)
	}
	return len(p), nil
}

// Bytes is what was kept.
func (h *Head) Bytes() []byte { return h.b }

// First is the first line written.
func (h *Head) First() string {
	line, _, _ := bytes.Cut(bytes.TrimSpace(h.b), []byte("\n"))
	return string(line)
}

// MemoryExceeded is work that needed more than Memory bytes: its child died of it.
type MemoryExceeded struct{ Memory uint64 }

func (e *MemoryExceeded) Error() string {
	return fmt.Sprintf("it needs more than %d MiB of memory", e.Memory>>20)
}
