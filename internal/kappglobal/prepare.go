// Package kappglobal holds what rebasegen sets and serialises in kapp's and ytt's process-wide
// state: kapp's colour and version settings (Prepare) and the one lock and memo every package
// running kapp's ytt rebase rules shares (SerialYTT). kapp's keys and the version pins are in
// internal/kappconv, which links neither kapp nor ytt.
package kappglobal

import (
	"sync"

	kappversion "carvel.dev/kapp/pkg/kapp/version"
	"github.com/cppforlife/color"

	"github.com/rebasegen/rebasegen/internal/kappconv"
)

var prepareOnce sync.Once

// Prepare sets kapp's process-wide state the way rebasegen needs it, once, before kapp's config
// or diff code runs (not on import: importing a package should change nothing).
//   - kapp's TextDiffView colours lines through github.com/cppforlife/color: rebasegen's diffs
//     must be plain text.
//   - kapp finds its own version in the binary's build info: the module version, with a v
//     ("v0.66.0"), or "develop" where there is none (test binaries before Go 1.27). kapp's
//     release binary is stamped without the v (goreleaser's {{ .Version }}), and
//     minimumRequiredVersion errors quote it: rebasegen says what kapp's binary says.
func Prepare() {
	prepareOnce.Do(func() {
		color.NoColor = true
		kappversion.Version = kappconv.Kapp
	})
}
