package generator

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/yttrender"
	"github.com/rebasegen/rebasegen/internal/kappconv"
	"github.com/rebasegen/rebasegen/internal/kappglobal"
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
// kapp deploy refuses the value of: kapp-controller's kapp fails on its arguments, and no change
// of the package is applied, whatever the rules (probe14 P14-3). yttrender allows the option by
// name; kapp, which that stage does not link, judges the value (kappglobal.KappDeployRefuses).
func kappDeployAccepts(p yttrender.Package, r *load.Reader) error {
	options, err := p.DeployRawOptions(r)
	if err != nil || len(options) == 0 {
		return err
	}
	values := make([]string, len(options))
	for i, o := range options {
		values[i] = o.Option
	}
	i, err := kappglobal.KappDeployRefuses(values)
	if err != nil && i >= 0 {
		return fmt.Errorf("%s: kapp deploy refuses %q (no change of the package is applied): %w", options[i].At, options[i].Option, err)
	}
	return err
}
