package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/internal/generated"
)

// Regression (issue 24, newcomer5 F2): in the README's CI setup (live captured once, desired from
// the pull request) a pull request adding a list item (a sidecar), changing a list item's merge
// key (containerPort 80 -> 81) or declaring a field the server defaulted made the committed
// generated rules "stale", exit 3, and the regeneration it showed dropped the per-kind copies of
// the containers' and ports' defaults the deployed objects need (the new sidecar's defaults are
// not in the capture). Those rules are up to date with what kapp last applied: not stale, exit 0,
// the pending change reported. A real staleness still fails: a hand edit, or rules lacking one a
// ghost diff of the deployed objects needs (a file whose digest matches), and the diff shown is
// against the rules for the deployed objects, never one dropping the containers' copies.
func TestCheckPendingChangesAreNotStale(t *testing.T) {
	const (
		containers = `- [spec, template, spec, containers, {allIndexes: true}, {regex: "^(imagePullPolicy|terminationMessagePath|terminationMessagePolicy)$"}]`
		ports      = `- [spec, template, spec, containers, {allIndexes: true}, ports, {allIndexes: true}, protocol]`
		notStale   = "is not stale: it is up to date with what kapp last applied"
		staleLine  = "would change (line"
	)
	dir := t.TempDir()
	generate := func(fixture string) (flags []string, rules string) {
		flags = scenario(t, fixture)
		rules = filepath.Join(dir, fixture+"-rules.yml")
		if r := rebasegen(t, append([]string{"generate"}, append(flags, "--output-file", rules)...)...); r.code != 0 {
			t.Fatalf("generate %s: exit %d: %s", fixture, r.code, r.stderr)
		}
		return flags, rules
	}
	hpa, hpaRules := generate("hpa-replicas")
	app, appRules := generate("package-app")
	committed, err := os.ReadFile(hpaRules)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{containers, ports} {
		if !strings.Contains(string(committed), want) {
			t.Fatalf("the generated rules lack %s:\n%s", want, committed)
		}
	}
	write := func(name, text string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// handEdited drops the ports' copy; resealed does too, with a digest matching: rules generated
	// when the deployed objects had no such ghost diff
	handEdited := write("edited.yml", strings.Replace(string(committed), "  "+ports+"\n", "", 1))
	digest := regexp.MustCompile(`(?m)^#! Digest: sha256:[0-9a-f]+$`)
	resealed := write("resealed.yml", generated.Seal(digest.ReplaceAllString(strings.Replace(string(committed), "  "+ports+"\n", "", 1), "#! Digest: sha256:"+strings.Repeat("0", 64))))
	if generated.Of([]byte(mustRead(t, resealed))) != generated.Intact {
		t.Fatal("the resealed rules are not intact")
	}

	edit := func(fixture, name string, edit func(string) string) string {
		t.Helper()
		m := mustRead(t, filepath.Join("..", "..", "fixtures", fixture, "desired.yaml"))
		changed := edit(m)
		if changed == m {
			t.Fatalf("%s: the edit changes nothing", name)
		}
		return write(name+".yaml", changed)
	}
	replace := func(old, new string) func(string) string {
		return func(m string) string { return strings.Replace(m, old, new, 1) }
	}
	sidecar := edit("hpa-replicas", "sidecar", replace("            memory: 64Mi\n", "            memory: 64Mi\n      - name: sidecar\n        image: busybox:1.36\n"))
	port81 := edit("hpa-replicas", "port81", replace("containerPort: 80", "containerPort: 81"))
	declared := edit("hpa-replicas", "declared", replace("- containerPort: 80", "- {containerPort: 80, protocol: TCP}"))
	currency := edit("package-app", "currency", replace("  title: Rebasegen Shop\n", "  title: Rebasegen Shop\n  currency: EUR\n"))
	secondPort := edit("package-app", "second-port", replace("  - name: http\n    port: 80\n    targetPort: http\n---\napiVersion: batch/v1",
		"  - name: http\n    port: 80\n    targetPort: http\n  - name: metrics\n    port: 9090\n    targetPort: 9090\n---\napiVersion: batch/v1"))

	with := func(flags []string, desired string) []string {
		out := append([]string{"check"}, flags...)
		out[2] = desired // scenario's flags: -d DESIRED -l LIVE -n NAMESPACE
		return out
	}
	for _, tc := range []struct {
		name      string
		args      []string
		code      int
		want, not []string // in stdout and stderr
	}{
		{"a sidecar added", append(with(hpa, sidecar), "--rules", hpaRules, "--fail-on-drift"), 0,
			[]string{"pending change from Git (kapp applies it on deploy): apps/Deployment hpa-replicas/web spec.template.spec.containers[name=sidecar]", "0 stale generated files", notStale}, []string{staleLine}},
		{"a port's merge key changed", append(with(hpa, port81), "--rules", hpaRules, "--fail-on-drift"), 0,
			[]string{"ports[containerPort=81,protocol=TCP]: a change made in Git", "0 stale generated files", notStale}, []string{staleLine}},
		{"a defaulted field declared", append(with(hpa, declared), "--rules", hpaRules), 0, []string{"0 stale generated files", notStale}, []string{staleLine}},
		{"a custom resource's default declared", append(with(app, currency), "--rules", appRules), 0, []string{"0 stale generated files", notStale}, []string{staleLine}},
		{"a NodePort Service's port added", append(with(app, secondPort), "--rules", appRules), 0,
			[]string{"pending change from Git (kapp applies it on deploy): core/Service package-app/shop-api-public spec.ports[port=9090,protocol=TCP]", "0 stale generated files", notStale}, []string{staleLine}},
		{"unchanged manifests: no note", append(with(hpa, hpa[1]), "--rules", hpaRules), 0, []string{"0 stale generated files"}, []string{staleLine, notStale}},
		{"a hand edit with a sidecar added", append(with(hpa, sidecar), "--rules", handEdited), 3,
			[]string{"1 stale generated file", "+  " + ports, "compared with the rules regenerated from what kapp last applied"},
			[]string{"-  " + containers, "overlayContractV1", notStale}},
		{"a hand edit, manifests unchanged", append(with(hpa, hpa[1]), "--rules", handEdited), 3, []string{"1 stale generated file", "+  " + ports},
			[]string{"compared with the rules regenerated from what kapp last applied"}},
		{"rules lacking one the deployed objects need, a sidecar added", append(with(hpa, sidecar), "--rules", resealed), 3,
			[]string{"1 stale generated file", "+  " + ports}, []string{"-  " + containers, "overlayContractV1", notStale}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rebasegen(t, tc.args...)
			out := r.stdout + r.stderr
			if r.code != tc.code {
				t.Errorf("exit %d, want %d:\n%s", r.code, tc.code, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("missing %q:\n%s", w, out)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(out, n) {
					t.Errorf("unexpected %q:\n%s", n, out)
				}
			}
		})
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
