//go:build unix

package main

import (
	"runtime"
	"syscall"
	"time"
)

// usage is the CPU time and peak resident memory so far of the process and of the child
// processes it waited for (the ytt rules of the rules in force and package renders run in
// processes of their own, and do much of the work).
func usage() (u runUsage, ok bool) {
	var self, children syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &self) != nil || syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children) != nil {
		return runUsage{}, false
	}
	rss := func(ru syscall.Rusage) int64 {
		if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
			return int64(ru.Maxrss) // bytes
		}
		return int64(ru.Maxrss) * 1024 // kilobytes on Linux
	}
	cpu := func(ru syscall.Rusage) time.Duration { return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()) }
	return runUsage{cpu: cpu(self) + cpu(children), rss: rss(self), childRSS: rss(children)}, true
}
