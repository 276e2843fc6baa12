package kappglobal

import (
	"fmt"
	"testing"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	kappversion "carvel.dev/kapp/pkg/kapp/version"

	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// RefusedVersion says what kapp's own Config validation says of a minimumRequiredVersion, for
// the kapp kapp-controller deploys with and for the one rebasegen links (probe13 P13-5). The
// oracle is kapp's Config.Validate with kapp's process-wide version set to each (as a kapp
// binary of that version is stamped), which a test may do: nothing else runs kapp here.
func TestRefusedVersionIsKappsValidate(t *testing.T) {
	Prepare()
	was := kappversion.Version
	t.Cleanup(func() { kappversion.Version = was })
	refused := 0
	for _, kapp := range []string{kappconv.KappControllerKapp, kappconv.Kapp} {
		kappversion.Version = kapp
		for _, minimum := range []string{"", "0.60.0", "0.62.0", "0.62.1", "0.63", "0.66.0", "0.66.1", "1.0.0", "0.62.0-rc.1", "v0.62.0", "latest"} {
			want := ctlconf.Config{APIVersion: kappconv.ConfigAPIVersion, Kind: kappconv.ConfigKind, MinimumRequiredVersion: minimum}.Validate()
			got := RefusedVersion(minimum, kapp)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("kapp %s, minimumRequiredVersion %q: RefusedVersion %v, kapp's Validate %v", kapp, minimum, got, want)
			}
			if want != nil {
				refused++
			}
		}
	}
	if kappversion.Version = kappconv.KappControllerKapp; (ctlconf.Config{APIVersion: kappconv.ConfigAPIVersion, Kind: kappconv.ConfigKind, MinimumRequiredVersion: kappconv.Kapp}).Validate() == nil {
		t.Errorf("kapp %s accepts minimumRequiredVersion %s: the cases tell nothing", kappconv.KappControllerKapp, kappconv.Kapp)
	}
	if refused == 0 {
		t.Error("kapp refused no case")
	}
}
