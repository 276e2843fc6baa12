//go:build !race

package argocd_test

const raceDetector = false // see race_test.go
