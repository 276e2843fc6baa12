package emit

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator/synth"
)

// TestRuleCommentNamesFewResources (issue 11): a rule matching a fleet names the first resources
// in its comment and counts the rest, instead of one line naming every resource.
func TestRuleCommentNamesFewResources(t *testing.T) {
	for _, n := range []int{1, 5, 6, 1000} {
		var ids []string
		for i := range n {
			ids = append(ids, fmt.Sprintf("apps/Deployment ns/web-%04d", i))
		}
		rule := synth.Rule{Classes: []string{"defaulted"}, Resources: ids, Sources: synth.UserWins(),
			Paths:    [][]string{{"spec", "revisionHistoryLimit"}},
			Matchers: []synth.Matcher{{APIVersionKind: &synth.APIVersionKind{APIVersion: "apps/v1", Kind: "Deployment"}}}}
		var b strings.Builder
		if err := WriteRules(&b, []synth.Rule{rule}, Header{Options: Options{Format: FormatConfig}}); err != nil {
			t.Fatal(err)
		}
		var line string
		for _, l := range strings.Split(b.String(), "\n") {
			if strings.HasPrefix(l, "#! defaulted: ") {
				line = l
			}
		}
		want := "#! defaulted: apps/Deployment ns/web-0000"
		switch n {
		case 5:
			want += ", apps/Deployment ns/web-0001, apps/Deployment ns/web-0002, apps/Deployment ns/web-0003, apps/Deployment ns/web-0004"
		case 6:
			want += ", apps/Deployment ns/web-0001, apps/Deployment ns/web-0002, apps/Deployment ns/web-0003, apps/Deployment ns/web-0004 and 1 more"
		case 1000:
			want += ", apps/Deployment ns/web-0001, apps/Deployment ns/web-0002, apps/Deployment ns/web-0003, apps/Deployment ns/web-0004 and 995 more"
		}
		if line != want {
			t.Errorf("%d resources: comment\n%s\nwant\n%s", n, line, want)
		}
	}
}
