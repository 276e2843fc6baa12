//go:build !unix

package main

func usage() (runUsage, bool) { return runUsage{}, false }
