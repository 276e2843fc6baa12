package verify

import (
	"encoding/json"
	"errors"
	"fmt"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/internal/kappconv"
	"github.com/rebasegen/rebasegen/internal/kappprep"
)

// ConfigOf reads the kapp Config res holds as kapp does: a Config, or a ConfigMap labelled
// kapp.k14s.io/config holding one in data."config.yml".
func ConfigOf(res ctlres.Resource) (ctlconf.Config, error) {
	switch {
	case res.APIVersion() == kappconv.ConfigAPIVersion:
		return ctlconf.NewConfigFromResource(res)
	case res.APIVersion() == "v1" && res.Kind() == "ConfigMap" && hasKey(res.Labels(), kappconv.ConfigLabel):
		data, _, _ := unstructured.NestedString(res.UnstructuredObject(), "data", kappconv.ConfigKey)
		// a *ResourceImpl, compared as such: a nil one inside the Resource interface is not nil
		inner, err := ctlres.NewResourceFromBytes([]byte(data))
		if err == nil && inner == nil {
			err = errors.New(`data."config.yml" is empty`)
		}
		if err != nil {
			return ctlconf.Config{}, err
		}
		return ctlconf.NewConfigFromResource(inner)
	}
	return ctlconf.Config{}, fmt.Errorf("not a kapp Config (apiVersion %s, kind Config) nor a ConfigMap labelled %s", kappconv.ConfigAPIVersion, kappconv.ConfigLabel)
}

// ValidateConfig reads a kapp Config or labelled ConfigMap as kapp does (its parser, its
// Config.Validate, every rule's mods built), for an error that names where it is written.
func ValidateConfig(c *unstructured.Unstructured) error {
	bs, err := json.Marshal(c.Object)
	if err == nil {
		err = catch(func() (err error) { _, err = kappConfs.validate(bs); return err })
	}
	return err
}

// validateConfig parses one config source and builds every rule's mods, turning kapp's panics
// (unknown rebase rule type, empty matcher) into errors that name the rule. It returns the
// number of rebase mods a kapp Config makes (0 for a labelled ConfigMap: its rules are not timed).
func validateConfig(bs []byte) (rebaseMods int, err error) {
	res, err := desiredResource(bs)
	if err != nil {
		return 0, err
	}
	cfg, err := ConfigOf(res)
	if err != nil {
		return 0, err
	}
	timed := res.APIVersion() == kappconv.ConfigAPIVersion

	kvs := map[string]string{kappconv.AppLabel: kappprep.FallbackAppLabel}
	var errs []error
	check := func(what string, i int, f func()) {
		if err := catch(func() error { f(); return nil }); err != nil {
			errs = append(errs, fmt.Errorf("%s[%d]: %w", what, i, err))
		}
	}
	matchers := func(ms []ctlconf.ResourceMatcher) func() {
		return func() { ctlconf.ResourceMatchers(ms).AsResourceMatchers() }
	}
	for i, r := range cfg.RebaseRules {
		check("rebaseRules", i, func() {
			if mods := r.AsMods(); timed {
				rebaseMods += len(mods)
			}
		})
	}
	for i, r := range cfg.DiffAgainstLastAppliedFieldExclusionRules {
		check("diffAgainstLastAppliedFieldExclusionRules", i, func() { r.AsMod() })
	}
	for i, r := range cfg.DiffAgainstExistingFieldExclusionRules {
		check("diffAgainstExistingFieldExclusionRules", i, func() { r.AsMod() })
	}
	for i, r := range cfg.OwnershipLabelRules {
		check("ownershipLabelRules", i, func() { r.AsMod(kvs) })
	}
	for i, r := range cfg.LabelScopingRules {
		check("labelScopingRules", i, func() { r.AsMod(kvs) })
	}
	for i, r := range cfg.DiffMaskRules {
		check("diffMaskRules", i, matchers(r.ResourceMatchers))
	}
	for i, r := range cfg.TemplateRules {
		check("templateRules", i, func() {
			matchers(r.ResourceMatchers)()
			for _, ref := range r.AffectedResources.ObjectReferences {
				matchers(ref.ResourceMatchers)()
			}
		})
	}
	return rebaseMods, joinErrors(errs)
}
