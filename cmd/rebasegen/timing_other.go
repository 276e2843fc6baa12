//go:build !unix

package main

import "time"

func usage() (time.Duration, int64, bool) { return 0, 0, false }
