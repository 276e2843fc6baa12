//go:build race

package child

// raceDetector: built with -race, whose runtime (ThreadSanitizer) maps shadow memory no data
// segment limit leaves room for: no child's memory is bounded (Bounded is false).
const raceDetector = true
