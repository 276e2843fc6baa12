package generator_test

import (
	"testing"

	ctldiff "carvel.dev/kapp/pkg/kapp/diff"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/internal/kapptest"
)

// versionedSecret is a package of one versioned Secret written with stringData, which the API
// server stores base64-encoded in data: generate writes a ytt rule folding it into data.
const versionedSecret = `apiVersion: v1
kind: Secret
metadata:
  name: creds
  annotations:
    kapp.k14s.io/versioned: ""
stringData:
  USER: admin
`

// generatedVersioned is the rules generate writes for manifests deployed by kapp
// into ns (kapptest.Deployed: the versioned resources live as NAME-ver-1), with check's inputs.
func generatedVersioned(t *testing.T, ns, manifests string) (generator.Inputs, string) {
	t.Helper()
	in := deployedInputs(t, ns, manifests)
	rules, _ := generatedRules(t, in)
	return in, rules
}

// deployedInputs are generate's inputs for manifests deployed by kapp into ns (kapptest.Deployed).
func deployedInputs(t *testing.T, ns, manifests string) generator.Inputs {
	t.Helper()
	return generator.Inputs{Namespace: ns, Desired: []string{writeFile(t, "desired.yaml", manifests)},
		Live: []string{writeFile(t, "live.yaml", kapptest.Deployed(t, ns, manifests))}}
}

// TestVersionedStringDataSecretChecks (issue 24, newcomer13 N13-6): a versioned Secret written
// with stringData, under the ytt rule generate wrote for it. The mutation check's removal of its
// metadata.annotations took kapp.k14s.io/versioned with it, and the mutated pair (desired NAME,
// live NAME-ver-1) was refused as two resources: check and lint exited 1 ("is not the same
// resource") on the inputs generate verified. kapp creates NAME once Git takes the annotation
// away, copying nothing from NAME-ver-1. The oracle is kapp's deploy (kapptest.BothBases): it
// keeps the Secret under the rules, so check is clean.
func TestVersionedStringDataSecretChecks(t *testing.T) {
	const ns = "vs"
	in, rules := generatedVersioned(t, ns, versionedSecret)
	kappKeepsAll(t, in, rules)
	c, err := generator.Check(in, []string{rules})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Residual)+len(c.Stale)+len(c.Pending)+len(c.Hidden) != 0 || c.Kept != c.Paired || c.Paired != 1 {
		t.Errorf("want clean, kapp keeping the Secret: kept %d/%d, residual %v, stale %v, pending %v, hidden %v", c.Kept, c.Paired, c.Residual, c.Stale, c.Pending, c.Hidden)
	}
}

// TestRecoveredVersionedResourcePairs (issue 24, newcomer13 N13-2): with no --desired, each
// manifest is recovered from kapp.k14s.io/original, where kapp recorded a versioned resource
// under the NAME-ver-N it gave it; recovered so, it was a pending create of NAME-ver-1 (kapp
// would make NAME-ver-1-ver-1) and a pending delete of the live NAME-ver-1: check exited 3 on an
// app exactly as deployed. The oracle is kapp's deploy of the package itself (kapptest.BothBases,
// the manifest named NAME as the package names it): it keeps the Secret, so check is clean.
func TestRecoveredVersionedResourcePairs(t *testing.T) {
	const ns = "vr"
	in, rules := generatedVersioned(t, ns, versionedSecret)
	kappKeepsAll(t, in, rules)
	in.Desired = nil
	c, err := generator.Check(in, []string{rules})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Residual)+len(c.Pending)+len(c.Hidden) != 0 || c.Kept != c.Paired || c.Paired != 1 {
		t.Errorf("want clean, kapp keeping the Secret: kept %d/%d, residual %v, pending %v, hidden %v", c.Kept, c.Paired, c.Residual, c.Pending, c.Hidden)
	}
}

// kappKeepsAll fails t unless kapp's deploy of in under the rules (kapptest.BothBases) keeps every
// resource, under both bases.
func kappKeepsAll(t *testing.T, in generator.Inputs, rules string) {
	t.Helper()
	for _, ch := range kapptest.BothBases(t, in.Desired, in.Live[0], in.Namespace, []string{rules}) {
		if ch.Op() != ctldiff.ChangeOpKeep && ch.Op() != ctldiff.ChangeOpNoop {
			t.Fatalf("oracle: kapp's deploy (against last applied %v) makes %s %s under the generated rules", ch.AgainstLastApplied, ch.Op(), ch.NewResource().Name())
		}
	}
}
