package generator

import (
	"encoding/json"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/rebasegen/rebasegen/generator/load"
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
