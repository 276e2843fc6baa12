package generator_test

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/synth"
)

// kapp reads every object labelled kapp.k14s.io/config as a Config and refuses the deploy for any
// but a v1 ConfigMap (config/conf.go newConfigFromConfigMapRes). A manifest labelling another
// kind so is an input error naming its file, document and line, in check, generate and explain
// alike (probe10 P10-4). Old code: check and generate failed with an internal pair index naming no
// file; explain passed it; a new labelled Secret was a pending create, exit 3.
func TestObjectLabelledAsKappConfigMustBeAConfigMap(t *testing.T) {
	in := fixture("hpa-replicas")
	in.Desired = []string{editedFixture(t, in.Desired[0], func(u *unstructured.Unstructured) bool {
		if u.GetKind() == "HorizontalPodAutoscaler" {
			u.SetLabels(map[string]string{"kapp.k14s.io/config": ""})
		}
		return true
	})}
	want := in.Desired[0] + ": document 2 (line "
	check := func(what string, err error) {
		t.Helper()
		if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "kapp.k14s.io/config") || !strings.Contains(err.Error(), "refuses the deploy") {
			t.Errorf("%s: %v, want an error starting %q, naming the label and kapp refusing the deploy", what, err, want)
		}
	}
	_, err := generator.Check(in, nil)
	check("check", err)
	_, err = generator.Generate(in, synth.Options{})
	check("generate", err)
	_, _, err = generator.Explain(in)
	check("explain", err)
}
