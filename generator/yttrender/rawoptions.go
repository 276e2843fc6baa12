package yttrender

import (
	"fmt"
	"regexp"

	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/rulesets"
)

// RawOption is an element of the rawOptions of the kapp deploy step of the package's Package
// (--package-cr), At naming its file, document, line and field.
type RawOption struct{ At, Option string }

// DeployRawOptions are the rawOptions of the kapp deploy step of the package's Package
// (--package-cr), in the order kapp-controller v0.51.0 passes them to kapp deploy, each of the
// form and name it allows (readPackageCR refuses the others); none without a Package. Whether
// kapp deploy takes their values is kapp's to say, which this stage does not link.
func (p Package) DeployRawOptions(r *load.Reader) ([]RawOption, error) {
	if p.CR == "" {
		return nil, nil
	}
	data, err := r.ReadFile(p.CR)
	if err != nil {
		return nil, err
	}
	cr, err := readPackageCR(p.CR, data)
	if err != nil {
		return nil, err
	}
	var out []RawOption
	for i, d := range cr.Spec.Template.Spec.Deploy {
		if d.Kapp == nil {
			continue
		}
		for j, o := range d.Kapp.RawOptions {
			out = append(out, RawOption{rawOptionAt(p.CR, data, i, j), o})
		}
	}
	return out, nil
}

// rawOptionAt names rawOptions[j] of deploy step i of the Package CR file holding data.
func rawOptionAt(file string, data []byte, i, j int) string {
	return fmt.Sprintf("%s: document 1 (line %d): spec.template.spec.deploy[%d].kapp.rawOptions[%d]", file, lineOf(data, "spec", "template", "spec", "deploy", i, "kapp", "rawOptions", j), i, j)
}

// kappFlag is kapp-controller's form of a raw option (pkg/exec/flag.go): --name=value only.
var kappFlag = regexp.MustCompile(`\A(--[a-z]+(?:-[a-z]+)*)=(.+)\z`)

// deployOptions refuses a deploy step rebasegen cannot judge: kapp-controller runs exactly one
// (pkg/app/app_deploy.go), and passes its rawOptions to kapp deploy; a flag that changes which
// resources kapp diffs or what it applies (--filter-kind, --diff-run) would make every verdict
// wrong, so only the flags rulesets knows to leave both alone pass. Their values are judged as
// kapp parses them, which this stage does not link (generator.kappDeployAccepts).
func deployOptions(file string, data []byte, cr packageCR) error {
	deploy := cr.Spec.Template.Spec.Deploy
	if len(deploy) > 1 {
		return fmt.Errorf("%s: spec.template.spec.deploy has %d steps: kapp-controller runs exactly one", file, len(deploy))
	}
	for i, d := range deploy {
		if d.Kapp == nil || len(d.Kapp.RawOptions) == 0 {
			continue
		}
		rs, err := rulesets.Load()
		if err != nil {
			return err
		}
		for j, o := range d.Kapp.RawOptions {
			at := rawOptionAt(file, data, i, j)
			m := kappFlag.FindStringSubmatch(o)
			if m == nil {
				return fmt.Errorf("%s: %q is not of the form --name=value, which kapp-controller requires", at, o)
			}
			if _, ok := rs.DeployOption(m[1]); !ok {
				return fmt.Errorf("%s: %s %s", at, o, ChangesWhatKappApplies)
			}
		}
	}
	return nil
}

// ChangesWhatKappApplies ends the refusal of a rawOption rebasegen's verdicts do not hold under.
const ChangesWhatKappApplies = "changes which resources kapp diffs or what it applies, which rebasegen does not model: its verdict would not hold for this Package's deploys"
