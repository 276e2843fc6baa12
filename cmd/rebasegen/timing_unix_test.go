//go:build unix

package main

import (
	"os/exec"
	"testing"
)

// TestUsageCountsChildProcesses (newcomer9 N9-1): the timing line's CPU includes the child
// processes the run waited for (ytt rules and package renders run in processes of their own); it
// read the process's own usage only, a quarter of a check's CPU. The child's own accounting, from
// its wait status, is the oracle.
func TestUsageCountsChildProcesses(t *testing.T) {
	before, ok := usage()
	if !ok {
		t.Skip("no resource usage on this system")
	}
	spin := exec.Command("sh", "-c", "i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done")
	if err := spin.Run(); err != nil {
		t.Fatal(err)
	}
	child := spin.ProcessState.UserTime() + spin.ProcessState.SystemTime()
	after, _ := usage()
	if got := after.cpu - before.cpu; got < child {
		t.Errorf("CPU grew by %s over a child process that used %s", got, child)
	}
	if after.childRSS <= 0 {
		t.Errorf("largest child process: %d bytes", after.childRSS)
	}
}
