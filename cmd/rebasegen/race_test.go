//go:build race

package main

// raceDetector: under -race ytt renders run in-process (yttrender: its runtime maps shadow memory no
// address space limit leaves room for), bounded by the heap watch alone.
const raceDetector = true
