package generator_test

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator"
)

// A pull request whose manifest now carries what `kubectl create --dry-run=client -o yaml` writes
// (creationTimestamp: null in the object's and the pod template's metadata) against the captured
// DaemonSet of fixtures/daemonset: the API server stores null as absent, so nothing changes in
// Git. generate writes the rule removing the template's null and does not call it a hidden
// change (newcomer7 N7-13: "2 real changes hidden", nothing written), and the rules generated
// before the pull request are stale, the diff adding that rule, which kapp's next last apply
// (holding the null) needs after the deploy.
func TestDryRunNullCreationTimestampIsNoChangeMadeInGit(t *testing.T) {
	in := fixture("daemonset")
	rules, _ := generatedText(t, in, given(in))
	before := writeFile(t, "rules.yml", rules)

	dry := fixtureEdited(t, "daemonset", "", func(u *unstructured.Unstructured) {
		u.Object["metadata"].(map[string]any)["creationTimestamp"] = nil
		if err := unstructured.SetNestedField(u.Object, nil, "spec", "template", "metadata", "creationTimestamp"); err != nil {
			t.Fatal(err)
		}
	})
	dryRules, gd := generatedText(t, dry, given(dry))
	if len(gd.Verification.Hidden) != 0 {
		t.Errorf("want no change made in Git hidden, got %v", gd.Verification.Hidden)
	}
	if !strings.Contains(dryRules, "- [spec, template, metadata, creationTimestamp]") {
		t.Errorf("want a rule for the template's creationTimestamp: null, got\n%s", dryRules)
	}

	c, err := generator.Check(dry, []string{before})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Hidden) != 0 || len(c.Pending) != 0 {
		t.Errorf("want no change made in Git, got hidden %v, pending %v", c.Hidden, c.Pending)
	}
	if len(c.Stale) != 1 || !strings.Contains(c.Stale[0].Diff, "+  - [spec, template, metadata, creationTimestamp]") {
		t.Errorf("want the rules stale, the diff adding the removal of the template's creationTimestamp, got stale %v, deferred %v", c.Stale, c.Deferred)
	}
}
