package kappglobal

import (
	"fmt"

	semver "github.com/hashicorp/go-version"

	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// RefusedVersion is kapp's validation of a Config's minimumRequiredVersion (carvel.dev/kapp
// pkg/kapp/config/config.go Config.Validate, the same from v0.60.0 to v0.66.0) for the kapp
// release kapp, with kapp's library and constraint: kapp's own Validate reads the process-wide
// kappversion.Version, which Prepare sets to the kapp rebasegen links (and which kapp's
// concurrent callers read), while kapp-controller deploys with another (kappconv.KappControllerKapp).
// nil where that kapp accepts minimum.
func RefusedVersion(minimum, kapp string) error {
	if minimum == "" {
		return nil
	}
	if minimum[0] == 'v' {
		return fmt.Errorf("Validating minimum version: Must not have prefix 'v' (e.g. '0.8.0')")
	}
	constraint, err := semver.NewConstraint(">=" + minimum)
	if err != nil {
		return fmt.Errorf("Parsing minimum version constraint: %w", err)
	}
	v, err := semver.NewVersion(kapp)
	if err != nil {
		return fmt.Errorf("Parsing version constraint: %w", err)
	}
	if !constraint.Check(v) {
		return fmt.Errorf("kapp version '%s' does not meet the minimum required version '%s'", kapp, minimum)
	}
	return nil
}

// KappControllerRefuses is why kapp-controller (kappconv.KappController) deploys nothing of a
// package holding, or deployed with, a Config whose minimumRequiredVersion its kapp refuses
// (probe13 P13-5); nil where that kapp accepts minimum. The message names both kapp versions.
func KappControllerRefuses(minimum string) error {
	err := RefusedVersion(minimum, kappconv.KappControllerKapp)
	if err == nil {
		return nil
	}
	return fmt.Errorf("kapp-controller %s deploys the package with kapp v%s, which rejects the Config (no change of the package is applied): %w (kapp v%s, which rebasegen embeds, accepts it)",
		kappconv.KappController, kappconv.KappControllerKapp, err, kappconv.Kapp)
}
