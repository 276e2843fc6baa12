package main

// The pending corpus: one resource holding many changes made in Git (probe13 P13-3).

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/internal/kappconv"
	"github.com/rebasegen/rebasegen/internal/scenario"
)

// buildPendingCorpus writes the hpa-replicas pairs (objs) with the Deployment's container
// declaring n env values, the live object (and kapp's last apply of it) holding v<i>, the manifest
// w<i>: a pull request changing every value, n pending changes of one resource. Its size, Pairs,
// is n, the values; Resources the pairs written.
func buildPendingCorpus(objs []scenario.Object, n int, dir string) (*corpus, error) {
	c := &corpus{Dir: dir, DesiredDir: filepath.Join(dir, "desired"), LiveDir: filepath.Join(dir, "live"), Pairs: n, Resources: len(objs)}
	withEnv := func(obj map[string]any, prefix string) error {
		containers, ok, _ := unstructured.NestedSlice(obj, "spec", "template", "spec", "containers")
		if !ok || len(containers) == 0 {
			return fmt.Errorf("no containers")
		}
		env := make([]any, n)
		for i := range env {
			env[i] = map[string]any{"name": fmt.Sprintf("V%05d", i), "value": fmt.Sprintf("%s%d", prefix, i)}
		}
		containers[0].(map[string]any)["env"] = env
		return unstructured.SetNestedSlice(obj, containers, "spec", "template", "spec", "containers")
	}
	var desired, live strings.Builder
	for _, o := range objs {
		d, l := o.Desired.DeepCopy(), o.Live.DeepCopy()
		if d.GetKind() == "Deployment" {
			anns := l.GetAnnotations()
			var original map[string]any
			if err := json.Unmarshal([]byte(anns[kappconv.Original]), &original); err != nil {
				return nil, fmt.Errorf("%s: %s: %w", o.Resource, kappconv.Original, err)
			}
			for _, x := range []struct {
				obj    map[string]any
				prefix string
			}{{d.Object, "w"}, {l.Object, "v"}, {original, "v"}} {
				if err := withEnv(x.obj, x.prefix); err != nil {
					return nil, fmt.Errorf("%s: %w", o.Resource, err)
				}
			}
			bs, err := json.Marshal(original) // compact, keys sorted, as kapp records it
			if err != nil {
				return nil, err
			}
			anns[kappconv.Original] = string(bs)
			l.SetAnnotations(anns)
		}
		if err := appendPair(&desired, &live, d, l); err != nil {
			return nil, err
		}
	}
	for _, f := range []struct {
		dir string
		b   *strings.Builder
	}{{c.DesiredDir, &desired}, {c.LiveDir, &live}} {
		if err := os.MkdirAll(f.dir, 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(f.dir, "pending.yaml"), []byte(f.b.String()), 0o644); err != nil {
			return nil, err
		}
		c.Bytes += int64(f.b.Len())
	}
	return c, nil
}
