//go:build race

package yttrender

// raceDetector: built with -race, whose runtime (ThreadSanitizer) maps shadow memory no data
// segment limit leaves room for: renders run in-process, bounded by the heap watch alone.
const raceDetector = true
