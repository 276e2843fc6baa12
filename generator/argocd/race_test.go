//go:build race

package argocd_test

// raceDetector: under -race jq runs many times slower, so an expression slow enough to be past
// Argo CD's deadline on a plain run can pass the verdict's own deadline too.
const raceDetector = true
