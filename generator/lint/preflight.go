package lint

import (
	"fmt"

	cmdcore "carvel.dev/kapp/pkg/kapp/cmd/core"
	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	"carvel.dev/kapp/pkg/kapp/crdupgradesafety"
	"carvel.dev/kapp/pkg/kapp/permissions"
	"carvel.dev/kapp/pkg/kapp/preflight"
)

// PreflightFails is kapp v0.66.0's refusal of the preflightRules of its Configs, nil when it takes
// them: a deploy with changes sets its preflight registry (cmd/kapp.go's, its checks built without
// a cluster, which setting their config never reaches) from them before it applies anything
// (cmd/app/deploy.go), and stops where it refuses an unknown name, a name given twice or a
// check's config.
func PreflightFails(rules []ctlconf.PreflightRule) error {
	registry, _ := KappPreflights(nil)
	return SetPreflights(registry, rules)
}

// KappPreflights is kapp v0.66.0's preflight registry as cmd/kapp.go builds it, its checks
// reaching the cluster through deps, and its CRDUpgradeSafety check.
func KappPreflights(deps cmdcore.DepsFactory) (*preflight.Registry, *crdupgradesafety.Preflight) {
	crd := crdupgradesafety.NewPreflight(deps, false)
	return preflight.NewRegistry(map[string]preflight.Check{
		"PermissionValidation": permissions.NewPreflight(deps, false),
		"CRDUpgradeSafety":     crd,
	}), crd
}

// SetPreflights sets registry from the preflight rules as kapp's deploy does (cmd/app/deploy.go),
// with its error.
func SetPreflights(registry *preflight.Registry, rules []ctlconf.PreflightRule) error {
	if err := registry.SetConfig(rules); err != nil {
		return fmt.Errorf("preflight configuration settings failed: %w", err)
	}
	return nil
}

// preflightRules reports the first of this document's preflightRules with which kapp refuses the
// preflight rules of the package's Configs and this one's (PreflightFails), added in turn.
func (c *checker) preflightRules(root at) {
	items := root.field("preflightRules").items()
	if len(items) == 0 {
		return
	}
	_, conf, err := ctlconf.NewConfFromResources(c.configs)
	if err != nil {
		return // the package's Configs: reported where they are read
	}
	rules := conf.PreflightRules()
	if PreflightFails(rules) != nil {
		return // refused without this document's rules
	}
	for i, a := range items {
		var r ctlconf.PreflightRule
		if decode(a.v, &r) != nil {
			return // kapp refuses the Config: a finding of its own
		}
		rules = append(rules, r)
		if err := PreflightFails(rules); err != nil {
			c.add(Error, a, fmt.Sprintf("preflightRules[%d] (%s): a deploy with changes fails on it in kapp before it applies anything: %s", i, describe(a), err),
				"name each of kapp v0.66.0's preflight checks (PermissionValidation, CRDUpgradeSafety) once, across the Configs kapp deploys")
			return
		}
	}
}
