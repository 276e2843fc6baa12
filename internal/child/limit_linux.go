package child

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"syscall"
)

// memoryBounded: Linux counts a process's private writable mappings, the Go heap's included,
// against RLIMIT_DATA (since Linux 4.7).
const memoryBounded = true

// limitMemory lets the process map at most budget bytes of data more than it holds now, and has
// the garbage collector work to stay under it before an allocation would fail.
func limitMemory(budget uint64) error {
	data, err := vmData()
	if err != nil {
		return err
	}
	limit := data + budget
	if err := syscall.Setrlimit(syscall.RLIMIT_DATA, &syscall.Rlimit{Cur: limit, Max: limit}); err != nil {
		return fmt.Errorf("limiting the child's memory: %w", err)
	}
	debug.SetMemoryLimit(int64(budget - budget/8))
	return nil
}

// vmData is the process's data segment and private mappings (VmData in /proc/self/status), what
// RLIMIT_DATA bounds.
func vmData() (uint64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if v, ok := bytes.CutPrefix(s.Bytes(), []byte("VmData:")); ok {
			kb, err := strconv.ParseUint(string(bytes.TrimSuffix(bytes.TrimSpace(v), []byte(" kB"))), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("/proc/self/status has no VmData")
}

// Killed: the process was killed with SIGKILL (the kernel's OOM killer sends it).
func Killed(st *os.ProcessState) bool {
	ws, ok := st.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL
}
