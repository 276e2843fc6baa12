package e2e

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/internal/testcluster"
)

const emptyConfig = "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nrebaseRules: []\n"

// Issue 11's causes on a real cluster: admission by a real webhook and by built-in plugins, a CRD
// whose zero values the server drops, an atomic list a job rewrote. kapp sees each as a change;
// the rules rebasegen generates make kapp see none; check fails without rules and passes with them.
func TestE2EAdmissionDroppedValuesAndAtomicLists(t *testing.T) {
	c := testcluster.Shared(t, testcluster.Options{ControllerManager: true})
	bin := buildRebasegen(t, t.TempDir())
	for _, name := range []string{"admission-webhook", "admission-pod", "admission-pvc", "crd-dropped-values", "atomic-list-job"} {
		t.Run(name, func(t *testing.T) {
			r := replay(t, c, name)
			s, dir := r.s, r.dir
			desired, live := r.desired, r.live
			inputs := []string{"-q", "-d", desired, "-l", live, "-n", s.Namespace}
			for _, rs := range s.Rulesets { // the scenario's own controllers, named as a user names theirs
				inputs = append(inputs, "--ruleset", rs)
			}

			if got := kappDiffRun(t, c, s, desired); got != changes {
				t.Fatalf("the scenario shows no ghost diff to kapp (exit %d)", got)
			}
			rules := filepath.Join(dir, "rules.yml")
			if code, out := exitOf(bin, append([]string{"generate", "--output-file", rules}, inputs...)...); code != 0 {
				t.Fatalf("generate: exit %d\n%s", code, out)
			}
			if got := kappDiffRun(t, c, s, desired, rules); got != noChanges {
				t.Errorf("with the generated rules kapp --diff-run exited %d, want %d (no changes)", got, noChanges)
			}
			none := writeFile(t, filepath.Join(dir, "none.yml"), emptyConfig)
			for _, tc := range []struct {
				rules string
				want  int
			}{{none, 3}, {rules, 0}} {
				if code, out := exitOf(bin, append([]string{"check", "--rules", tc.rules}, inputs...)...); code != tc.want {
					t.Errorf("check --rules %s: exit %d, want %d\n%s", filepath.Base(tc.rules), code, tc.want, out)
				}
			}
		})
	}
}

func exitOf(bin string, args ...string) (int, string) {
	out, err := exec.Command(bin, args...).CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), string(out)
	}
	if err != nil {
		return -1, err.Error()
	}
	return 0, strings.TrimSpace(string(out))
}
