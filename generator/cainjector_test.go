package generator_test

import (
	"path/filepath"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/synth"
)

// cert-manager's CA injector is known from its inject annotation alone, where cert-manager reads
// it: on a webhook configuration for its webhooks (fixtures/export-without-managedfields), on a
// CRD itself for its conversion webhook (fixtures/crd-defaults' CRD turned into a converting
// one). Without the annotation nothing says who wrote the caBundle. Live objects carry no
// managedFields, so only the knowledge decides.
func TestCAInjectorEvidenceOnWebhookConfigurationAndCRD(t *testing.T) {
	const ann = "cert-manager.io/inject-ca-from"
	const caBundle = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg=="
	annotate := func(on bool) func(map[string]any) {
		return func(o map[string]any) {
			md := o["metadata"].(map[string]any)
			delete(md, "managedFields")
			a, _ := md["annotations"].(map[string]any)
			if a == nil {
				a = map[string]any{}
			}
			delete(a, ann)
			if on {
				a[ann] = "cert-manager/webhook-cert"
			}
			md["annotations"] = a
		}
	}
	converting := func(on, live bool) func(map[string]any) {
		return func(o map[string]any) {
			annotate(on)(o)
			cc := map[string]any{"service": map[string]any{"name": "webhook", "namespace": "crd-defaults", "path": "/convert", "port": int64(443)}}
			if live {
				cc["caBundle"] = caBundle
			}
			o["spec"].(map[string]any)["conversion"] = map[string]any{"strategy": "Webhook",
				"webhook": map[string]any{"clientConfig": cc, "conversionReviewVersions": []any{"v1"}}}
		}
	}
	webhooks := filepath.Join("..", "fixtures", "export-without-managedfields")
	crd := filepath.Join("..", "fixtures", "crd-defaults")
	for _, c := range []struct {
		name, dir, object, path string
		desired, live           func(map[string]any)
		want                    string
	}{
		{"webhook configuration annotated", webhooks, "rebasegen-export-webhook", "webhooks[name=mutate.export.rebasegen.dev].clientConfig.caBundle",
			annotate(true), annotate(true), "controller:cert-manager-cainjector"},
		{"webhook configuration not annotated", webhooks, "rebasegen-export-webhook", "webhooks[name=mutate.export.rebasegen.dev].clientConfig.caBundle",
			annotate(false), annotate(false), "unknown"},
		{"CRD annotated", crd, "backups.crd-defaults.rebasegen.dev", "spec.conversion.webhook.clientConfig.caBundle",
			converting(true, false), converting(true, true), "controller:cert-manager-cainjector"},
		{"CRD not annotated", crd, "backups.crd-defaults.rebasegen.dev", "spec.conversion.webhook.clientConfig.caBundle",
			converting(false, false), converting(false, true), "unknown"},
	} {
		t.Run(c.name, func(t *testing.T) {
			desired := fixtureObject(t, filepath.Join(c.dir, "desired.yaml"), c.object, c.desired)
			live := fixtureObject(t, filepath.Join(c.dir, "live.yaml"), c.object, c.live)
			in := generator.Inputs{Desired: []string{desired}, Live: []string{live}}
			rep, _, err := generator.Explain(in)
			if err != nil {
				t.Fatal(err)
			}
			got := "not found"
			for _, r := range rep.Resources {
				for _, f := range r.Findings {
					if f.Path.String() == c.path {
						got = f.Label()
					}
				}
			}
			if got != c.want {
				t.Fatalf("%s: want %s, got %s", c.path, c.want, got)
			}
			if c.want == "unknown" {
				return
			}
			g, err := generator.Generate(in, synth.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if v := g.Verification; v.KeptPairs != 1 {
				t.Errorf("want the pair kept by kapp's engine under both bases: %s\n%v", v.Summary(), v.Residual)
			}
		})
	}
}
