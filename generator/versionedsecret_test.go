package generator_test

import (
	"bytes"
	"os"
	"testing"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	ctldiff "carvel.dev/kapp/pkg/kapp/diff"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/emit"
	"github.com/rebasegen/rebasegen/generator/internal/kapptest"
	"github.com/rebasegen/rebasegen/internal/generated"
)

// versionedOpaque is a versioned Secret declared with data and no type, which the API server
// defaults to Opaque: generate rules the type for the kind (newcomer13 N13-7).
const versionedOpaque = `apiVersion: v1
kind: Secret
metadata:
  name: creds
  annotations:
    kapp.k14s.io/versioned: ""
data:
  USER: YWRtaW4=
`

// secretWritten is the rules Secret generate writes for in (as --output secret), its rules file
// (the Secret's key), and generate's result.
func secretWritten(t *testing.T, in generator.Inputs) (string, *generator.Generated) {
	t.Helper()
	opts := emit.Options{Namespace: in.Namespace, Format: emit.FormatSecret, PackageInstall: in.Namespace + "/pkg"}
	g, err := generator.Generate(in, opts.Synth())
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := emit.WriteRules(&b, g.Rules, emit.Header{Version: "test", Options: opts}); err != nil {
		t.Fatal(err)
	}
	s, ok := generated.ReadSecret(b.Bytes())
	if !ok {
		t.Fatalf("generate --output secret wrote no rules Secret:\n%s", b.String())
	}
	return writeFile(t, "rebase-rules.yml", s.Body), g
}

// TestSecretRulesVerifiedAsWritten (issue 24, newcomer13 N13-7): generate verified a rules
// Secret's rules in the config format's form (the kind's matcher) and then wrote them narrowed to
// the install's names, which kapp matched otherwise: it said "kapp keeps 1/1" while kapp created
// creds-ver-2 for the ghost type: Opaque. The oracle is kapp's deploy under the Secret's own rules
// file (kapptest.BothBases): generate says kapp keeps everything exactly when kapp does.
func TestSecretRulesVerifiedAsWritten(t *testing.T) {
	const ns = "vw"
	in := deployedInputs(t, ns, versionedOpaque)
	rules, g := secretWritten(t, in)
	var made []string
	for _, ch := range kapptest.BothBases(t, in.Desired, in.Live[0], ns, []string{rules}) {
		if ch.Op() != ctldiff.ChangeOpKeep && ch.Op() != ctldiff.ChangeOpNoop {
			made = append(made, string(ch.Op())+" "+ch.NewResource().Name())
		}
	}
	if says := g.Verification.OK() && g.Verification.Kept == g.Verification.Paired; says != (len(made) == 0) {
		t.Errorf("generate says kapp keeps everything: %v (%s); kapp's deploy under the written rules makes %v", says, g.Verification.Summary(), made)
	}
}

// versionedPair is versionedOpaque beside a Secret that is not versioned, declared alike.
const versionedPair = versionedOpaque + `---
apiVersion: v1
kind: Secret
metadata:
  name: plain
data:
  USER: YWRtaW4=
`

// versionedQuota is a versioned ResourceQuota declaring 8192Mi, which the API server stores in
// canonical form (8Gi): generate rules it for this resource alone, by name (newcomer13 N13-6).
const versionedQuota = `apiVersion: v1
kind: ResourceQuota
metadata:
  name: quota
  annotations:
    kapp.k14s.io/versioned: ""
spec:
  hard:
    limits.memory: 8192Mi
    requests.cpu: "4"
`

// TestVersionedRulesMatchEveryNameKappGives (issue 24, newcomer13 N13-7): a rule naming a
// versioned resource NAME never matched it, since kapp renames it NAME-ver-(N+1) before its
// rebase rules run: the rules Secret's copy of a versioned Secret's type made kapp create
// creds-ver-2, and a versioned ResourceQuota's canonical-quantity rule (config format) made
// generate's own verification fail with no reason given. The oracle is kapp's deploy under the
// written rules (kapptest.BothBases): it keeps every resource, and kapp's matcher code selects
// the versioned resource under the name kapp diffs (NAME-ver-2) and the live one (NAME-ver-1),
// and no Secret the install does not render.
func TestVersionedRulesMatchEveryNameKappGives(t *testing.T) {
	in := deployedInputs(t, "vm", versionedPair)
	secretRules, g := secretWritten(t, in)
	kappKeepsAll(t, in, secretRules)
	if !g.Verification.OK() {
		t.Errorf("generate --output secret: %s", g.Verification.Summary())
	}
	matched := func(rules, kind, ns, name string) bool {
		bs, err := os.ReadFile(rules)
		if err != nil {
			t.Fatal(err)
		}
		res, err := ctlres.NewResourceFromBytes(bs)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := ctlconf.NewConfigFromResource(res)
		if err != nil {
			t.Fatal(err)
		}
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": kind,
			"metadata": map[string]any{"name": name, "namespace": ns, "annotations": map[string]any{"kapp.k14s.io/versioned": ""}}}}
		if name == "other" {
			u.SetAnnotations(nil)
		}
		r := ctlres.NewResourceUnstructured(*u, ctlres.ResourceType{})
		for _, rule := range cfg.RebaseRules {
			if (ctlres.AnyMatcher{Matchers: ctlconf.ResourceMatchers(rule.ResourceMatchers).AsResourceMatchers()}).Matches(r) {
				return true
			}
		}
		return false
	}
	for name, want := range map[string]bool{"creds-ver-2": true, "creds-ver-1": true, "other": false} {
		if got := matched(secretRules, "Secret", "vm", name); got != want {
			t.Errorf("kapp's matcher selects Secret vm/%s with the Secret's rules: %v, want %v", name, got, want)
		}
	}

	in = deployedInputs(t, "vq", versionedQuota)
	rules, g := generatedRules(t, in)
	kappKeepsAll(t, in, rules)
	if !g.Verification.OK() {
		t.Errorf("generate: %s", g.Verification.Summary())
	}
	if !matched(rules, "ResourceQuota", "vq", "quota-ver-2") {
		bs, _ := os.ReadFile(rules)
		t.Errorf("kapp's matcher does not select ResourceQuota vq/quota-ver-2 with the rules:\n%s", bs)
	}
}
