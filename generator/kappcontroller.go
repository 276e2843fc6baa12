package generator

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/generator/yttrender"
	"github.com/rebasegen/rebasegen/internal/kappconv"
	"github.com/rebasegen/rebasegen/internal/kappglobal"
	"github.com/rebasegen/rebasegen/rulesets"
)

// kappControllerAccepts refuses, for a Package kapp-controller deploys (--package-cr), a Config
// of the package's own (a Config document, or a labelled ConfigMap's config.yml) whose
// minimumRequiredVersion kapp-controller's kapp refuses: its deploy of the package fails
// whatever the rules (probe13 P13-5), while the kapp rebasegen links accepts it. lint judges
// the rule files' Configs the same way (lint.Options.KappController).
func kappControllerAccepts(configs []load.Object) error {
	for _, c := range configs {
		minimum, field := minimumRequired(c)
		if err := kappglobal.KappControllerRefuses(minimum); err != nil {
			return &load.Error{Source: c.Source, Field: field, Msg: err.Error()}
		}
	}
	return nil
}

// minimumRequired is c's minimumRequiredVersion, read as kapp reads a Config (its keys in any
// case), and the field holding it; "" where it has none kapp reads (what kapp cannot read, its
// own parser refuses).
func minimumRequired(c load.Object) (minimum, field string) {
	const key = "minimumRequiredVersion"
	text, field := []byte(nil), key
	if load.IsLabelledConfig(c) {
		s, _, _ := unstructured.NestedString(c.Object, "data", kappconv.ConfigKey)
		text, field = []byte(s), "data."+kappconv.ConfigKey+" "+key
	} else {
		text, _ = json.Marshal(c.Object)
	}
	var conf struct {
		MinimumRequiredVersion string `json:"minimumRequiredVersion"`
	}
	if yaml.Unmarshal(text, &conf) != nil {
		return "", ""
	}
	return conf.MinimumRequiredVersion, field
}

// kappDeployAccepts refuses a Package (--package-cr) whose kapp deploy step passes a rawOption
// value kapp deploy refuses (kapp-controller's kapp then fails on its arguments: no change of the
// package is applied, whatever the rules; probe14 P14-3), one below the least kapp deploys with
// (kapp panics: probe16 P16-1), or one under which kapp diffs or applies otherwise (a skip update
// strategy). yttrender allows the option by name; each value is judged here once, as kapp reads
// it (kappglobal.KappDeployParse: "0x0" is 0, "T" is true). The options that change what kapp
// does and that rebasegen models, each as kapp holds it after the last one given (pflag), go into
// deploy: the default update strategy, and --wait=false.
func kappDeployAccepts(p yttrender.Package, r *load.Reader, rs *rulesets.Ruleset, deploy *pair.Deploy) error {
	options, err := p.DeployRawOptions(r)
	if err != nil || len(options) == 0 {
		return err
	}
	given := make([]string, len(options))
	for i, o := range options {
		given[i] = o.Option
	}
	values, i, err := kappglobal.KappDeployParse(given)
	if err != nil {
		if i >= 0 {
			return fmt.Errorf("%s: kapp deploy refuses %q (no change of the package is applied): %w", options[i].At, options[i].Option, err)
		}
		return err
	}
	for i, o := range options {
		flag, _, _ := strings.Cut(o.Option, "=")
		switch flag {
		case "--apply-default-update-strategy":
			deploy.DefaultUpdateStrategy, deploy.StrategyAt = values[i], o.At
		case "--wait":
			deploy.NoWait = ""
			if values[i] == "false" {
				deploy.NoWait = o.At
			}
		}
		allowed, _ := rs.DeployOption(flag)
		if allowed.Values != nil && !slices.Contains(allowed.Values, values[i]) {
			return fmt.Errorf("%s: %s %s", o.At, o.Option, yttrender.ChangesWhatKappApplies)
		}
		if allowed.Min != nil {
			if n, err := strconv.ParseFloat(values[i], 64); err == nil && n < *allowed.Min {
				return fmt.Errorf("%s: kapp deploy fails with %s (no change of the package is applied): %s is at least %v for kapp", o.At, o.Option, flag, *allowed.Min)
			}
		}
		if most, err := time.ParseDuration(allowed.MaxDuration); err == nil {
			if d, err := time.ParseDuration(values[i]); err == nil && d > most {
				return fmt.Errorf("%s: kapp deploy sleeps %v between looks at the resources it applies while one is not done (a Deployment rolling out), and the changes of later change groups wait that long: %s is at most %v for kapp", o.At, d, flag, most)
			}
		}
		if least, err := time.ParseDuration(allowed.MinDuration); err == nil {
			if d, err := time.ParseDuration(values[i]); err == nil && d < least {
				return fmt.Errorf("%s: kapp deploy fails with %s whenever a resource it applies is not done at once (a Deployment rolling out), and the changes of later change groups wait for the next sync: %s is at least %v for kapp", o.At, o.Option, flag, least)
			}
		}
	}
	return nil
}
