package emit

import (
	"strings"
	"testing"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	kappversion "carvel.dev/kapp/pkg/kapp/version"
	"sigs.k8s.io/yaml"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/synth"
	"github.com/rebasegen/rebasegen/internal/kappglobal"
)

// kapp-controller v0.51.0 runs kapp v0.62.0 (its hack/dependencies.yml): a generated Config in
// every format must be one that kapp accepts, or every sync of the App fails (newcomer2 finding
// 14). kapp's parser checks minimumRequiredVersion against its own version, a process global.
func TestGeneratedConfigAcceptedByTheKappKappControllerRuns(t *testing.T) {
	kappglobal.Prepare()
	was := kappversion.Version
	kappversion.Version = "0.62.0"
	t.Cleanup(func() { kappversion.Version = was })
	r := synth.Rule{Classes: []classify.Class{classify.Defaulted}, Sources: synth.UserWins(), Paths: [][]string{{"spec", "revisionHistoryLimit"}},
		Matchers: []synth.Matcher{{APIVersionKind: &synth.APIVersionKind{APIVersion: "apps/v1", Kind: "Deployment"}}}}
	for _, f := range []Format{FormatConfig, FormatSecret} {
		var b strings.Builder
		if err := WriteRules(&b, []synth.Rule{r}, Header{Options: Options{Format: f, PackageInstall: "ns/app"}}); err != nil {
			t.Fatal(err)
		}
		text := b.String()
		if f == FormatSecret {
			var secret struct {
				StringData map[string]string `json:"stringData"`
			}
			if err := yaml.Unmarshal([]byte(text), &secret); err != nil || secret.StringData["rebase-rules.yml"] == "" {
				t.Fatalf("no rules in the Secret (%v):\n%s", err, text)
			}
			text = secret.StringData["rebase-rules.yml"]
		}
		rs, err := ctlres.NewResourcesFromBytes([]byte(text))
		if err != nil {
			t.Fatalf("%s: %v\n%s", f, err, text)
		}
		if _, _, err := ctlconf.NewConfFromResourcesWithDefaults(rs); err != nil {
			t.Errorf("%s: kapp v0.62.0 refuses the generated Config: %v", f, err)
		}
	}
}
