package e2e

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/emit"
	"github.com/rebasegen/rebasegen/generator/synth"
	"github.com/rebasegen/rebasegen/internal/testcluster"
)

// A Job whose pod template has no metadata (newcomer24 findings 2 and 4): kapp writes its own
// labels there, the Job strategy its job-name and controller-uid labels beside them, and the
// template is immutable. kapp reports the Job unchanged; the generated rules change kapp's md5,
// so kapp diffs against the live object, and rules that leave the strategy's labels out make
// the real deploy fail ("spec.template: field is immutable"). With the generated rules the
// real deploy succeeds and changes nothing, twice.
func TestE2EGeneratedRulesDeployAJobWithoutTemplateMetadata(t *testing.T) {
	c := testcluster.Shared(t, testcluster.Options{ControllerManager: true})
	r := replay(t, c, "job-template-no-metadata")
	s := r.s
	if got := kappDiffRun(t, c, s, r.desired); got != noChanges {
		t.Fatalf("without rules kapp --diff-run exited %d, want %d (no changes)", got, noChanges)
	}
	g, err := generator.Generate(generator.Inputs{Desired: []string{r.desired}, Live: []string{r.live}, Namespace: s.Namespace}, synth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !g.Verification.OK() || len(g.Verification.Updates) != 0 {
		t.Errorf("verification: %s %v %v", g.Verification.Summary(), g.Verification.Residual, g.Verification.Updates)
	}
	var rules bytes.Buffer
	if err := emit.WriteRules(&rules, g.Rules, emit.Header{Version: "e2e"}); err != nil {
		t.Fatal(err)
	}
	rulesFile := writeFile(t, filepath.Join(r.dir, "rules.yml"), rules.String())
	for i := range 2 {
		args := []string{"deploy", "-a", s.Name, "-n", s.Namespace, "--yes", "--wait=false", "-f", r.desired, "-f", rulesFile}
		out, err := c.KappCmd(args...).CombinedOutput()
		if err != nil {
			t.Fatalf("deploy %d with the generated rules: %v\n%s", i+1, err, out)
		}
		if !strings.Contains(string(out), "Op:      0 create, 0 delete, 0 update") {
			t.Errorf("deploy %d with the generated rules changed something:\n%s", i+1, out)
		}
	}
}
