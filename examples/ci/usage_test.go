package ci

import (
	"os/exec"
	"strings"
	"testing"
)

// The CI script given too few arguments says how to call it (it said "$2: unbound variable").
func TestCheckPackageUsage(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	out, err := exec.Command(bash, "check-package.sh", "config").CombinedOutput()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 1 || strings.TrimSpace(string(out)) != "usage: check-package.sh PACKAGE_CONFIG_DIR [VALUES_FILE] LIVE_YAML RULES_FILE [-- CHECK_FLAG...]" {
		t.Errorf("exit %v, output %q: want exit 1 and the usage line", err, out)
	}
}
