package generator_test

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/internal/kapptest"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// webImage is the first container's image of a Deployment kapp applies.
func webImage(o map[string]any) any {
	cs, _, _ := unstructured.NestedSlice(o, "spec", "template", "spec", "containers")
	if len(cs) == 0 {
		return nil
	}
	return cs[0].(map[string]any)["image"]
}

// imageCopy is a rule file copying every Deployment's container images from the live object,
// matched by matcher; its `- type: copy` line is line 4.
func imageCopy(matcher string) string {
	return "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nrebaseRules:\n- type: copy\n  sources: [existing]\n  paths:\n" +
		"  - [spec, template, spec, containers, {allIndexes: true}, image]\n  resourceMatchers:\n  - " + matcher + "\n"
}

// Two rule files each hiding an image bump alone: blame named the one --rules gave first, so the
// finding (and its GitHub annotation) changed with the order of the flags (fix28e item 4). Both
// are named, in name order, "each alone", at the first's line, whatever the order. Oracle:
// kapp's deploy diff with each file alone applies no new image, under both bases.
func TestHiddenByEachOfTwoFilesAloneNamesBoth(t *testing.T) {
	in := imageBumped(t, fixture("hpa-replicas"))
	a := writeFile(t, "a.yml", imageCopy("apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}"))
	b := writeFile(t, "b.yml", imageCopy("kindNamespaceNameMatcher: {kind: Deployment, namespace: hpa-replicas, name: web}"))
	for _, f := range []string{a, b} {
		for _, ch := range kapptest.BothBases(t, in.Desired, in.Live[0], in.Namespace, []string{f}) {
			if kapptest.Updates("Deployment", webImage)(ch.Change) {
				t.Fatalf("oracle: kapp with %s alone applies the new image", f)
			}
		}
	}
	var outputs [][]byte
	for _, files := range [][]string{{a, b}, {b, a}} {
		c, err := generator.Check(in, files)
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Hidden) != 1 {
			t.Fatalf("--rules %v: hidden %+v, want the image", files, c.Hidden)
		}
		h := c.Hidden[0]
		if h.At.File != a || h.At.Line != 4 || !strings.HasPrefix(h.Rule, a+":4,") || !strings.Contains(h.Rule, " and by "+b+":4,") || !strings.HasSuffix(h.Rule, ", each alone") {
			t.Errorf("--rules %v: blamed %q at %+v, want %s:4 and %s:4, each alone, at %s:4", files, h.Rule, h.At, a, b, a)
		}
		outputs = append(outputs, findingsJSON(t, c))
	}
	sameFindings(t, outputs)
}

// The branch of blame where no file's rules hide a change alone, only several files' together,
// on a real scenario: show.yml copies an annotation from the live object onto the Deployment kapp
// applies, and hide.yml, which kapp runs after it, copies the images from the live object of a
// Deployment holding that annotation. Oracle: kapp's deploy diff applies the new image with
// either file alone and not with both, under both bases.
func TestHiddenOnlyByFilesTogetherNamesThem(t *testing.T) {
	in := imageBumped(t, fixture("hpa-replicas"))
	in.Live = []string{editedKind(t, in.Live[0], "Deployment", func(u *unstructured.Unstructured) {
		ann := u.GetAnnotations()
		ann["example.com/pinned"] = "true"
		u.SetAnnotations(ann)
	})}
	show := writeFile(t, "show.yml", "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nrebaseRules:\n- type: copy\n  sources: [existing]\n  paths:\n"+
		"  - [metadata, annotations, example.com/pinned]\n  resourceMatchers:\n  - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}\n")
	hide := writeFile(t, "hide.yml", imageCopy("hasAnnotationMatcher: {keys: [example.com/pinned]}"))
	applies := func(files []string) int {
		n := 0
		for _, ch := range kapptest.BothBases(t, in.Desired, in.Live[0], in.Namespace, files) {
			if kapptest.Updates("Deployment", webImage)(ch.Change) {
				n++
			}
		}
		return n
	}
	if applies([]string{show}) != 2 || applies([]string{hide}) != 2 || applies([]string{show, hide}) != 0 {
		t.Fatalf("oracle: kapp applies the new image with %s alone %d, %s alone %d, both %d times (of 2 bases): want 2, 2, 0",
			show, applies([]string{show}), hide, applies([]string{hide}), applies([]string{show, hide}))
	}
	c, err := generator.Check(in, []string{show, hide})
	if err != nil {
		t.Fatal(err)
	}
	var image []verdict.Hidden
	for _, h := range c.Hidden {
		if strings.HasSuffix(h.Path, ".image") {
			image = append(image, h)
		}
	}
	if len(image) != 1 {
		t.Fatalf("hidden %+v, want the image", c.Hidden)
	}
	h := image[0]
	if !h.Together || h.At != (verdict.RuleAt{}) || !strings.Contains(h.Rule, "the rules in force together, no one file's alone") ||
		!strings.Contains(h.Rule, hide+":4") || !strings.Contains(h.Rule, show) {
		t.Errorf("blamed %q at %+v (together %v), want both files named, together, at no line", h.Rule, h.At, h.Together)
	}
}
