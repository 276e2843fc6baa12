//go:build !race

package yttrender

// raceDetector: see race.go.
const raceDetector = false
