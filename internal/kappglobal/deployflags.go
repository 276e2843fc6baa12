package kappglobal

import (
	"fmt"
	"strings"

	kappcmd "carvel.dev/kapp/pkg/kapp/cmd"
	"github.com/cppforlife/go-cli-ui/ui"
)

// KappDeployParse parses options, the rawOptions kapp-controller v0.51.0 passes to kapp deploy
// (pkg/deploy/kapp.go addRawOpts: each element ONE argv entry of the form --name=value, after a
// check of its --name alone), with kapp's own `kapp deploy` command, in their order, as kapp
// parses its argv. It returns the value kapp then holds for each option's flag, as kapp reads it
// ("0x10" is 16, "T" is true, "90s" is 1m30s), so that what rebasegen judges of a value is what
// kapp deploys with. When kapp refuses a value ("--wait-timeout=soon"; "--diff-context=2
// --filter-kind=X", whose value is "2 --filter-kind=X"), it returns that option's index and
// kapp's message, and -1 otherwise: kapp then fails every deploy of the package before applying
// anything, whatever the rules (probe14 P14-3). The command is kapp's (cmd.NewDefaultKappCmd: the
// root's global flags, --json, --kube-api-qps..., are added by cobra's ParseFlags as kapp adds
// them): whether kapp takes a value is kapp's to say, not a copy of its flag types. It is only
// built, never run. kapp-controller v0.51.0 deploys with kapp v0.62.0; the flags
// rulesets/deploy-options.yaml allows are defined alike in kapp's source of March 2024 and in
// v0.66.0, which rebasegen links (pkg/kapp/cmd).
func KappDeployParse(options []string) ([]string, int, error) {
	deploy, _, err := kappcmd.NewDefaultKappCmd(ui.NewConfUI(ui.NewNoopLogger())).Find([]string{"deploy"})
	if err != nil {
		return nil, -1, fmt.Errorf("kapp deploy's flags: %w", err)
	}
	values := make([]string, len(options))
	for i, o := range options {
		if err := deploy.ParseFlags([]string{o}); err != nil {
			return nil, i, err
		}
		name, _, _ := strings.Cut(strings.TrimPrefix(o, "--"), "=")
		f := deploy.Flags().Lookup(name)
		if f == nil {
			return nil, i, fmt.Errorf("kapp deploy parsed %s but has no flag --%s", o, name)
		}
		values[i] = f.Value.String()
	}
	return values, -1, nil
}
