package yttrender

import (
	"os"
	"testing"
)

// TestMain lets the test binary render packages in a child process of itself, as the rebasegen
// command does (RenderChild).
func TestMain(m *testing.M) {
	RenderChild()
	os.Exit(m.Run())
}
