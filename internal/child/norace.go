//go:build !race

package child

// raceDetector: see race.go.
const raceDetector = false
