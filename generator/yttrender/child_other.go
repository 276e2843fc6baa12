//go:build !linux

package yttrender

import (
	"errors"
	"os"
)

// memoryBounded: no RLIMIT_DATA that counts the Go heap's mappings (macOS ignores it for mmap):
// packages render in-process, within the heap watch.
const memoryBounded = false

func limitMemory(uint64) error {
	return errors.New("a render child's memory cannot be limited on this OS")
}

func killed(*os.ProcessState) bool { return false }
