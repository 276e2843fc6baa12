package e2e

import (
	"path/filepath"
	"testing"

	"github.com/rebasegen/rebasegen/internal/testcluster"
)

// Issue 16 on a real cluster: a Deployment first applied by kubectl client-side, by a server-side
// apply under Argo CD's manager name and by a Helm-like tool, then adopted by kapp. The appliers
// still own most fields; the rules rebasegen generates must silence the ghost diffs only: with
// them kapp sees no change for desired.yaml (exit 2) and still sees the change made in Git (exit 3),
// whichever base kapp diffs against.
func TestE2EAdoptedFromOtherAppliersKeepGitChangesVisible(t *testing.T) {
	c := testcluster.Shared(t, testcluster.Options{ControllerManager: true})
	bin := buildRebasegen(t, t.TempDir())
	for _, name := range []string{"adopt-kubectl-apply", "adopt-argocd-ssa", "adopt-helm"} {
		t.Run(name, func(t *testing.T) {
			r := replay(t, c, name)
			s, dir := r.s, r.dir
			desired, live := r.desired, r.live

			rules := filepath.Join(dir, "rules.yml")
			args := []string{"generate", "-q", "--output-file", rules, "-d", desired, "-l", live, "-n", s.Namespace}
			if code, out := exitOf(bin, args...); code != 0 {
				t.Fatalf("generate: exit %d\n%s", code, out)
			}
			changed := writeYAML(t, filepath.Join(dir, "changed.yaml"), withNewImage(t, s)) // s.RealChange
			// Right after its deploy kapp diffs against its own last-applied copy and sees no ghost
			// diff; once rules change its recorded md5 it diffs against the live object, where the
			// appliers' fields and the server's defaults all differ. Both bases.
			for _, base := range []struct {
				name  string
				flags []string
			}{{"last-applied base", nil}, {"live base", []string{"--diff-against-last-applied=false"}}} {
				if base.flags != nil {
					if got := kappDiffRunWith(t, c, s, base.flags, desired); got != changes {
						t.Fatalf("%s: the scenario shows no ghost diff to kapp (exit %d)", base.name, got)
					}
				}
				if got := kappDiffRunWith(t, c, s, base.flags, desired, rules); got != noChanges {
					t.Errorf("%s: ghost diffs alone, with the generated rules: kapp --diff-run exited %d, want %d (no changes)", base.name, got, noChanges)
				}
				if got := kappDiffRunWith(t, c, s, base.flags, changed, rules); got != changes {
					t.Errorf("%s: %s, with the generated rules: kapp --diff-run exited %d, want %d (the change is hidden)", base.name, s.RealChange.Description, got, changes)
				}
			}
		})
	}
}
