//go:build !race

package main

const raceDetector = false // see race_test.go
