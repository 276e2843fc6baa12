package compare

import (
	"os"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// cronJob is fixtures/job-cronjob's CronJob from file: the manifest (no labels or annotations of
// kapp's) or the live object kapp deployed (kapp's labels on it and its pod template, kapp's
// annotations, managedFields crediting kapp with them).
func cronJob(t *testing.T, file string) *unstructured.Unstructured {
	t.Helper()
	data, err := os.ReadFile("../fixtures/job-cronjob/" + file)
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range strings.Split(string(data), "\n---") {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
			t.Fatal(err)
		}
		if u.GetKind() == "CronJob" {
			u.SetNamespace("job-cronjob")
			return u
		}
	}
	t.Fatalf("no CronJob in %s", file)
	return nil
}

// An update (PUT) of the manifest replaces the object whole: it removes the labels and
// annotations kapp wrote, on the CronJob and on its pod template. They were left out of the
// comparison (kapp's diff ignores them, as it rewrites them), and the update was NoChange
// (newcomer walkthrough 6, N6-6). A server-side apply removes only what its manager applied:
// kapp wrote them with updates, so an apply under any manager leaves them. The manifest holding
// kapp's labels and annotations as live does writes nothing of them.
func TestUpdateRemovesKappLabelsAndAnnotations(t *testing.T) {
	desired, live := cronJob(t, "desired.yaml"), cronJob(t, "live.yaml")
	// the oracle: every kapp.k14s.io/ key of the live object's label and annotation maps, read
	// here from the captured object
	var want []string
	for _, at := range [][]string{{"metadata"}, {"spec", "jobTemplate", "spec", "template", "metadata"}} {
		for _, m := range []string{"labels", "annotations"} {
			kv, _, _ := unstructured.NestedStringMap(live.Object, append(at, m)...)
			for k := range kv {
				if strings.HasPrefix(k, "kapp.k14s.io/") {
					want = append(want, strings.Join(append(at, m), ".")+`["`+k+`"]`)
				}
			}
		}
	}
	if len(want) != 7 {
		t.Fatalf("the captured CronJob holds %d of kapp's labels and annotations, not 7: %v", len(want), want)
	}
	removed := func(r *Result) map[string]bool {
		out := map[string]bool{}
		for _, f := range r.Fields {
			if strings.Contains(f.Path, "kapp.k14s.io/") && f.Effect != Kept {
				out[f.Path] = f.Effect == Removed
			}
		}
		return out
	}

	up, err := New(WithUpdate())
	if err != nil {
		t.Fatal(err)
	}
	r, err := up.Compare(desired, live)
	if err != nil {
		t.Fatal(err)
	}
	got := removed(r)
	for _, p := range want {
		if !got[p] {
			t.Errorf("update: %s not removed", p)
		}
	}
	if r.Verdict != Changes || len(got) != len(want) {
		t.Errorf("update: %s, kapp's fields %v, want Changes removing %v\n%s", r.Verdict, got, want, fields(r))
	}

	for _, manager := range []string{"kapp", "ctrl"} {
		ap, err := New(WithApply(manager))
		if err != nil {
			t.Fatal(err)
		}
		r, err := ap.Compare(desired, live)
		if err != nil {
			t.Fatal(err)
		}
		if got := removed(r); len(got) != 0 {
			t.Errorf("apply as %s: kapp's fields %v, want them kept (kapp wrote them with updates)\n%s", manager, got, fields(r))
		}
	}

	// the manifest with kapp's labels and annotations as live holds them: nothing of them changes
	same := desired.DeepCopy()
	for _, at := range [][]string{{"metadata"}, {"spec", "jobTemplate", "spec", "template", "metadata"}} {
		for _, m := range []string{"labels", "annotations"} {
			lv, _, _ := unstructured.NestedStringMap(live.Object, append(at, m)...)
			dv, _, _ := unstructured.NestedStringMap(same.Object, append(at, m)...)
			if len(lv) == 0 {
				continue
			}
			if dv == nil {
				dv = map[string]string{}
			}
			for k, v := range lv {
				dv[k] = v
			}
			if err := unstructured.SetNestedStringMap(same.Object, dv, append(at, m)...); err != nil {
				t.Fatal(err)
			}
		}
	}
	if r, err = up.Compare(same, live); err != nil {
		t.Fatal(err)
	}
	if got := removed(r); len(got) != 0 || r.Verdict != NoChange {
		t.Errorf("update declaring kapp's fields as live holds them: %s, %v, want NoChange\n%s", r.Verdict, got, fields(r))
	}
}
