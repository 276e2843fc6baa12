package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/internal/testcluster"
)

// The danger the mutation check guards against, on a real cluster: a hand-written rule copying a
// custom resource's whole spec from the cluster silences its defaults, and with it a change made
// in Git. kapp reports no change (exit 2) although the manifest changed spec.storage.bucket;
// rebasegen check exits 3 naming the field and the rule.
func TestE2EHandWrittenRuleHidesAGitChange(t *testing.T) {
	c := testcluster.Shared(t, testcluster.Options{})
	bin := buildRebasegen(t, t.TempDir())
	r := replay(t, c, "crd-defaults")
	s, dir := r.s, r.dir
	rule := filepath.Join("..", "..", "fixtures", "lint", "crd-spec-copy", "rules.yml")
	live := r.live

	var changed []*unstructured.Unstructured
	for _, o := range s.Objects {
		d := o.Desired.DeepCopy()
		if d.GetKind() == "Backup" {
			if err := unstructured.SetNestedField(d.Object, "backups-moved", "spec", "storage", "bucket"); err != nil {
				t.Fatal(err)
			}
		}
		changed = append(changed, d)
	}
	desired := writeYAML(t, filepath.Join(dir, "desired.yaml"), changed)
	inputs := []string{"-q", "-d", filepath.Join(s.Dir, "desired.yaml"), "-l", live, "-n", s.Namespace}
	generated := filepath.Join(dir, "rules.yml")
	if code, out := exitOf(bin, append([]string{"generate", "--output-file", generated}, inputs...)...); code != 0 {
		t.Fatalf("generate: exit %d\n%s", code, out)
	}
	if got := kappDiffRun(t, c, s, desired, generated); got != changes {
		t.Fatalf("with the generated rules kapp shows the change made in Git: exit %d, want %d", got, changes)
	}
	if got := kappDiffRun(t, c, s, desired, generated, rule); got != noChanges {
		t.Errorf("with the hand-written rule too, kapp reports no change although the manifest changed: exit %d, want %d", got, noChanges)
	}
	code, out := exitOf(bin, append([]string{"check", "--rules", generated, "--rules", rule}, inputs...)...)
	if code != 3 || !strings.Contains(out, "hidden: crd-defaults.rebasegen.dev/Backup crd-defaults/nightly spec.storage.bucket") {
		t.Errorf("check with the hand-written rule: exit %d, want 3 naming spec.storage.bucket\n%s", code, out)
	}
}
