// Package kappconv is the one home of what rebasegen takes from kapp and pins: the versions of
// the libraries whose behaviour it reproduces (checked against the build info in a test, so a
// go.mod bump fails until these follow) and kapp's process-wide settings.
package kappconv

import (
	"sync"

	kappversion "carvel.dev/kapp/pkg/kapp/version"
	"github.com/cppforlife/color"
)

// Versions go.mod pins: Kapp is written into every generated Config as minimumRequiredVersion.
const (
	Kapp       = "0.66.0"  // carvel.dev/kapp
	YTT        = "0.53.0"  // carvel.dev/ytt
	Kubernetes = "v1.35.0" // k8s.io/kubernetes, whose defaulting code is linked in (k8s.io/* v0.35.0)
)

var prepareOnce sync.Once

// Prepare sets kapp's process-wide state the way rebasegen needs it, once, before kapp's config
// or diff code runs (not on import: importing a package should change nothing).
//   - kapp's TextDiffView colours lines through github.com/cppforlife/color: rebasegen's diffs
//     must be plain text.
//   - kapp finds its own version in the binary's build info, which test binaries lack ("develop");
//     Config minimumRequiredVersion checks need a real one.
func Prepare() {
	prepareOnce.Do(func() {
		color.NoColor = true
		if kappversion.Version == "develop" {
			kappversion.Version = Kapp
		}
	})
}
