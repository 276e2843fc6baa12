//go:build !linux

package child

import (
	"errors"
	"os"
)

// memoryBounded: no limit known to count the Go heap's mappings (macOS ignores RLIMIT_DATA for mmap):
// work a caller would give a child runs in its own process.
const memoryBounded = false

func limitMemory(uint64) error {
	return errors.New("a child's memory cannot be limited on this OS")
}

func Killed(*os.ProcessState) bool { return false }
