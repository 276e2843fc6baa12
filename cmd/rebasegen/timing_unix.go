//go:build unix

package main

import (
	"runtime"
	"syscall"
	"time"
)

// usage is the process's CPU time and peak resident memory so far.
func usage() (cpu time.Duration, rss int64, ok bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0, false
	}
	rss = int64(ru.Maxrss) * 1024 // kilobytes on Linux
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		rss = int64(ru.Maxrss) // bytes
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), rss, true
}
