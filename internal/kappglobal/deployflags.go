package kappglobal

import (
	"fmt"

	kappcmd "carvel.dev/kapp/pkg/kapp/cmd"
	"github.com/cppforlife/go-cli-ui/ui"
)

// KappDeployRefuses parses options, the rawOptions kapp-controller v0.51.0 passes to kapp deploy
// (pkg/deploy/kapp.go addRawOpts: each element ONE argv entry, after a check of its --name
// alone), with kapp's own `kapp deploy` command, in their order, as kapp parses its argv: the
// index of the first whose value kapp refuses ("--wait-timeout=soon"; "--diff-context=2
// --filter-kind=X", whose value is "2 --filter-kind=X") and kapp's message, or -1 and nil. kapp
// then fails every deploy of the package before applying anything, whatever the rules (probe14
// P14-3). The command is kapp's (cmd.NewDefaultKappCmd: the root's global flags, --json,
// --kube-api-qps..., are added by cobra's ParseFlags as kapp adds them): whether kapp takes a
// value is kapp's to say, not a copy of its flag types. It is only built, never run. kapp-controller
// v0.51.0 deploys with kapp v0.62.0; the flags rulesets/deploy-options.yaml allows are defined
// alike in kapp's source of March 2024 and in v0.66.0, which rebasegen links (pkg/kapp/cmd).
func KappDeployRefuses(options []string) (int, error) {
	deploy, _, err := kappcmd.NewDefaultKappCmd(ui.NewConfUI(ui.NewNoopLogger())).Find([]string{"deploy"})
	if err != nil {
		return -1, fmt.Errorf("kapp deploy's flags: %w", err)
	}
	for i, o := range options {
		if err := deploy.ParseFlags([]string{o}); err != nil {
			return i, err
		}
	}
	return -1, nil
}
