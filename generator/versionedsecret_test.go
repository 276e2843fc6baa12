package generator_test

import (
	"bytes"
	"testing"

	ctldiff "carvel.dev/kapp/pkg/kapp/diff"

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
	in := generator.Inputs{Namespace: ns, Desired: []string{writeFile(t, "desired.yaml", versionedOpaque)},
		Live: []string{writeFile(t, "live.yaml", kapptest.Deployed(t, ns, versionedOpaque))}}
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
