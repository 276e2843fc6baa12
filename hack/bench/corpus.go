package main

import (
	"crypto/md5"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/rebasegen/rebasegen/internal/kappconv"
	"github.com/rebasegen/rebasegen/internal/scenario"
)

// corpus is a synthetic fleet written to disk: the captured fixtures' desired/live pairs
// repeated with their names varied, one desired and one live file per copy of the fixtures.
type corpus struct {
	Name       string // fixtures or fleet
	Dir        string
	DesiredDir string
	LiveDir    string
	Pairs      int   // its size: the pairs (pending: the values changed in Git)
	Resources  int   // the pairs written, where not Pairs (pending)
	Bytes      int64 // YAML bytes written (desired + live)
}

// resources is the pairs c holds.
func (c *corpus) resources() int {
	if c.Resources > 0 {
		return c.Resources
	}
	return c.Pairs
}

// fixturePairs loads the captured scenarios' desired/live pairs (only the scenario named only,
// unless only is ""), desired namespaces filled in as `kapp deploy -n` does (scenario.yaml's
// namespace).
func fixturePairs(fixtures, only string) ([]scenario.Object, error) {
	all, err := scenario.LoadAll(fixtures)
	if err != nil {
		return nil, err
	}
	var out []scenario.Object
	for _, s := range all {
		if only != "" && s.Name != only {
			continue
		}
		for _, o := range s.Objects {
			if o.Live == nil {
				return nil, fmt.Errorf("%s: %s has no live object", s.Dir, o.Resource)
			}
			out = append(out, o)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no captured scenarios", fixtures)
	}
	return out, nil
}

// buildCorpus writes n pairs into dir: pair i is fixture object i mod len(objs) of copy
// i / len(objs), renamed NAME-<copy> consistently wherever kapp or the tool reads the name: the
// live object's kapp.k14s.io/original copy, its kapp.k14s.io/identity annotation, the
// kapp.k14s.io/association label (an md5 of the identity, recomputed) and an HPA's
// scaleTargetRef. Every object is labelled as one app's (kappconv.AppLabel, the first labelled
// object's value): the fixtures are separate apps, and kapp's deploy of objects labelled as
// several fails its ownership check. Recorded md5s stay valid: kapp hashes the diff between the
// original and the live object, and both are renamed and relabelled alike.
func buildCorpus(objs []scenario.Object, n int, dir string) (*corpus, error) {
	app := ""
	for _, o := range objs {
		if app = o.Live.GetLabels()[kappconv.AppLabel]; app != "" {
			break
		}
	}
	c := &corpus{Dir: dir, DesiredDir: filepath.Join(dir, "desired"), LiveDir: filepath.Join(dir, "live"), Pairs: n}
	for _, d := range []string{c.DesiredDir, c.LiveDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	var desired, live strings.Builder
	flush := func(copyN int) error {
		if desired.Len() == 0 {
			return nil
		}
		name := fmt.Sprintf("copy-%05d.yaml", copyN)
		for _, f := range []struct {
			dir string
			b   *strings.Builder
		}{{c.DesiredDir, &desired}, {c.LiveDir, &live}} {
			if err := os.WriteFile(filepath.Join(f.dir, name), []byte(f.b.String()), 0o644); err != nil {
				return err
			}
			c.Bytes += int64(f.b.Len())
			f.b.Reset()
		}
		return nil
	}
	for i := range n {
		copyN, o := i/len(objs), objs[i%len(objs)]
		if i > 0 && i%len(objs) == 0 {
			if err := flush(copyN - 1); err != nil {
				return nil, err
			}
		}
		d, l, err := renamed(o, fmt.Sprintf("-%d", copyN), app)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", o.Resource, err)
		}
		if err := appendPair(&desired, &live, d, l); err != nil {
			return nil, err
		}
	}
	if err := flush((n - 1) / len(objs)); err != nil {
		return nil, err
	}
	return c, nil
}

// appendPair appends d and l, each a YAML document, to desired and live.
func appendPair(desired, live *strings.Builder, d, l *unstructured.Unstructured) error {
	for _, x := range []struct {
		b *strings.Builder
		u *unstructured.Unstructured
	}{{desired, d}, {live, l}} {
		bs, err := yaml.Marshal(x.u.Object)
		if err != nil {
			return err
		}
		x.b.WriteString("---\n")
		x.b.Write(bs)
	}
	return nil
}

// renamed returns copies of o's desired and live objects with suffix appended to the name, the
// live object's app label value (wherever kapp wrote it: labels, selectors, pod templates) app.
func renamed(o scenario.Object, suffix, app string) (*unstructured.Unstructured, *unstructured.Unstructured, error) {
	d, l := o.Desired.DeepCopy(), o.Live.DeepCopy()
	oldAssoc, newAssoc := association(l, ""), association(l, suffix)
	oldApp := l.GetLabels()[kappconv.AppLabel]
	rename := func(u *unstructured.Unstructured) {
		if oldApp != "" && app != "" {
			replaceString(u.Object, oldApp, app)
		}
		u.SetName(u.GetName() + suffix)
		if u.GetKind() == "HorizontalPodAutoscaler" {
			if t, ok, _ := unstructured.NestedString(u.Object, "spec", "scaleTargetRef", "name"); ok {
				_ = unstructured.SetNestedField(u.Object, t+suffix, "spec", "scaleTargetRef", "name")
			}
		}
		if oldAssoc != "" {
			replaceString(u.Object, oldAssoc, newAssoc)
		}
	}
	rename(d)
	rename(l)
	anns := l.GetAnnotations()
	if orig, ok := anns[kappconv.Original]; ok {
		var m map[string]any
		if err := json.Unmarshal([]byte(orig), &m); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", kappconv.Original, err)
		}
		ou := &unstructured.Unstructured{Object: m}
		rename(ou)
		bs, err := json.Marshal(ou.Object) // compact, keys sorted, as kapp records it
		if err != nil {
			return nil, nil, err
		}
		anns[kappconv.Original] = string(bs)
	}
	if id, ok := anns[kappconv.IdentityAnnotation]; ok {
		// v1;NAMESPACE/GROUP/KIND/NAME;APIVERSION
		parts := strings.Split(id, ";")
		if len(parts) == 3 && strings.HasSuffix(parts[1], "/"+o.Live.GetName()) {
			parts[1] += suffix
			anns[kappconv.IdentityAnnotation] = strings.Join(parts, ";")
		}
	}
	if len(anns) > 0 {
		l.SetAnnotations(anns)
	}
	return d, l, nil
}

// association is kapp's association label value for u renamed with suffix ("" when u carries
// no association label): "v1." + md5 of kapp's unique resource key.
func association(u *unstructured.Unstructured, suffix string) string {
	if _, ok := u.GetLabels()[kappconv.AssociationLabel]; !ok {
		return ""
	}
	c := u.DeepCopy()
	c.SetName(c.GetName() + suffix)
	key := ctlres.NewUniqueResourceKey(ctlres.NewResourceUnstructured(*c, ctlres.ResourceType{})).String()
	return fmt.Sprintf("v1.%x", md5.Sum([]byte(key)))
}

func replaceString(v any, from, to string) {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			if s, ok := x.(string); ok && s == from {
				t[k] = to
				continue
			}
			replaceString(x, from, to)
		}
	case []any:
		for i, x := range t {
			if s, ok := x.(string); ok && s == from {
				t[i] = to
				continue
			}
			replaceString(x, from, to)
		}
	}
}
