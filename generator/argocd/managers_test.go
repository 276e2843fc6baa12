package argocd_test

import (
	"strings"
	"testing"

	"github.com/argoproj/argo-cd/v3/common"

	"github.com/rebasegen/rebasegen/rulesets"
)

// The appliers rulesets name for Argo CD are the manager its application controller writes with,
// taken from Argo CD's own code: gitops-engine hands the controller's server-side apply manager
// (common.ArgoCDSSAManager) to kubectl's apply code for client-side apply as well, so both record
// it (the Argo-applied fixtures, captured with Argo CD's sync code, show it for either mode).
func TestArgoCDApplierIsArgoCDsManager(t *testing.T) {
	rs, err := rulesets.Load()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, m := range rs.Appliers {
		if !strings.Contains(m.Source, "Argo CD") {
			continue
		}
		found = true
		if m.Name != common.ArgoCDSSAManager {
			t.Errorf("applier %q (%s): Argo CD writes as %q", m.Name, m.Source, common.ArgoCDSSAManager)
		}
	}
	if _, ok := rulesets.FindManager(rs.Appliers, common.ArgoCDSSAManager); !found || !ok {
		t.Errorf("no applier entry for Argo CD's manager %q", common.ArgoCDSSAManager)
	}
}
