//go:build !race

package generator_test

const raceDetector = false // see race_test.go
