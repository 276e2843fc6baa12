//go:build !race

package load

// raceDetector: see race.go.
const raceDetector = false
