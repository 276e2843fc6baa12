package capture

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/emit"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/synth"
)

// A package with a Secret checked against what capture wrote: its Secret values are redacted
// there, and the manifest (a package's rendering) holds the real ones. rebasegen compared the
// placeholder with them: data.password "controller:kapp", stringData a residual ghost diff,
// generate refused to write (newcomer24 finding 1). A redacted value is unknown: the analysis
// must be the one of the unredacted capture (the oracle: the same objects as the cluster returned
// them), generate must verify, and no value, real or placeholder, may reach the output.
func TestRedactedSecretValuesAreUnknown(t *testing.T) {
	dir := filepath.Join("..", "..", "fixtures", "package-app")
	live, err := load.Paths([]string{filepath.Join(dir, "live.yaml")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var redacted []byte
	for _, o := range live {
		bs, err := yaml.Marshal(redact(o.Unstructured).Object)
		if err != nil {
			t.Fatal(err)
		}
		redacted = append(append(redacted, "---\n"...), bs...)
	}
	redactedLive := filepath.Join(t.TempDir(), "live.yaml")
	if err := os.WriteFile(redactedLive, redacted, 0o644); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(redacted), Redacted) {
		t.Fatal("package-app's Secret was not redacted: the test tests nothing")
	}
	in := func(live string) generator.Inputs {
		return generator.Inputs{Desired: []string{filepath.Join(dir, "desired.yaml")}, Live: []string{live}, Namespace: "package-app"}
	}
	secretFindings := func(rep *classify.Report) map[string]string {
		out := map[string]string{}
		for _, r := range rep.Resources {
			if r.ID.Kind == "Secret" {
				for _, f := range r.Findings {
					out[f.Path.String()] = f.Label() + " " + f.Evidence
				}
			}
		}
		return out
	}
	want, _, err := generator.Explain(in(filepath.Join(dir, "live.yaml")))
	if err != nil {
		t.Fatal(err)
	}
	got, set, err := generator.Explain(in(redactedLive))
	if err != nil {
		t.Fatal(err)
	}
	if g, w := secretFindings(got), secretFindings(want); !reflect.DeepEqual(g, w) {
		t.Errorf("the Secret's findings with its values redacted:\n%v\nwant those of the values as the cluster holds them:\n%v", g, w)
	}
	if w := []string{"core/Secret package-app/shop-db data.password", "core/Secret package-app/shop-db data.username"}; !reflect.DeepEqual(set.Redacted, w) {
		t.Errorf("redacted values: got %v, want %v", set.Redacted, w)
	}
	var text, js strings.Builder
	if err := emit.WriteExplainText(&text, got, emit.Palette{}, 0); err != nil {
		t.Fatal(err)
	}
	if err := emit.WriteExplainJSON(&js, got); err != nil {
		t.Fatal(err)
	}
	g, err := generator.Generate(in(redactedLive), synth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if v := g.Verification; !v.OK() || v.KeptPairs != v.GhostPairs {
		t.Errorf("generate on the redacted capture: verification failed: %s\nresidual: %v", v.Summary(), v.Residual)
	}
	rules, err := yaml.Marshal(g.Config.Object)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"not-a-real-password", base64.StdEncoding.EncodeToString([]byte("not-a-real-password")), Redacted} {
		for name, out := range map[string]string{"explain text": text.String(), "explain json": js.String(), "rules": string(rules)} {
			if strings.Contains(out, secret) {
				t.Errorf("%s holds the Secret value %q:\n%s", name, secret, out)
			}
		}
	}
}
