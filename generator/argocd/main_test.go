package argocd

import (
	"os"
	"testing"
)

// TestMain lets the test binary run Argo CD's comparisons under jq expressions in a child process
// of itself, as the rebasegen command does (JQChild).
func TestMain(m *testing.M) {
	JQChild()
	os.Exit(m.Run())
}
