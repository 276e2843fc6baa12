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
	write := func(name, text string) string { return writeIn(t, dir, name, text) }
	// handEdited drops the ports' copy; resealed does too, with a digest matching: rules generated
	// when the deployed objects had no such ghost diff
	handEdited := write("edited.yml", strings.Replace(string(committed), "  "+ports+"\n", "", 1))
	digest := regexp.MustCompile(`(?m)^#! Digest: sha256:[0-9a-f]+$`)
	resealed := write("resealed.yml", generated.Seal(digest.ReplaceAllString(strings.Replace(string(committed), "  "+ports+"\n", "", 1), "#! Digest: sha256:"+strings.Repeat("0", 64))))
	if generated.Of([]byte(readFile(t, resealed))) != generated.Intact {
		t.Fatal("the resealed rules are not intact")
	}

	edit := func(fixture, name string, edit func(string) string) string {
		t.Helper()
		m := readFile(t, filepath.Join("..", "..", "fixtures", fixture, "desired.yaml"))
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

// Regression (issue 24, F2's gap): a pull request removing fields the manifest declared with the
// server's defaults (dnsPolicy: ClusterFirst, a port's protocol: TCP). kapp's last apply declared
// them, so the committed rules, up to date with it, copy neither; after the deploy the server
// defaults both again, and those rules leave two ghost diffs on every deploy. check reported them
// as residual ghost diffs and at once called the rules "not stale: regenerate after the deploy".
// The change holds after the deploy: the rules are stale, and the regeneration they show is what
// the deployed objects need. The oracle for after the deploy is the fixture's own capture, taken
// from a real API server with the manifest that declares neither.
func TestDroppedDefaultsAreStale(t *testing.T) {
	fix := scenario(t, "hpa-replicas")
	desired, captured := readFile(t, fix[1]), readFile(t, fix[3])
	const sentPort, sentContainers = `"ports":[{"containerPort":80}]`, `"spec":{"containers":`
	if strings.Count(captured, sentPort) != 1 || strings.Count(captured, sentContainers) != 1 {
		t.Fatal("fixture changed: kapp.k14s.io/original no longer holds the port and the containers as expected")
	}
	// kapp's last apply as it was when the manifest declared the defaults (the live object is the
	// same: the server stored these values either way)
	before := strings.NewReplacer(sentPort, `"ports":[{"containerPort":80,"protocol":"TCP"}]`, sentContainers, `"spec":{"dnsPolicy":"ClusterFirst","containers":`).Replace(captured)
	declared := strings.NewReplacer("        - containerPort: 80\n", "        - containerPort: 80\n          protocol: TCP\n",
		"      containers:\n", "      dnsPolicy: ClusterFirst\n      containers:\n").Replace(desired)
	if declared == desired {
		t.Fatal("fixture changed: no container port to declare the protocol of")
	}
	dir := t.TempDir()
	write := func(name, text string) string { return writeIn(t, dir, name, text) }
	live, declaredFile, bumped := write("live.yaml", before), write("declared.yaml", declared), write("bumped.yaml", strings.Replace(desired, "nginx:1.25", "nginx:1.26", 1))
	rules := filepath.Join(dir, "rules.yml")
	if r := rebasegen(t, "generate", "-d", declaredFile, "-l", live, "-n", fix[5], "--output-file", rules); r.code != 0 {
		t.Fatalf("generate: exit %d\n%s", r.code, r.stderr)
	}
	const (
		dnsPolicy = `+  - [spec, template, spec, {regex: "^(dnsPolicy|`
		protocol  = `+  - [spec, template, spec, containers, {allIndexes: true}, ports, {allIndexes: true}, protocol]`
	)
	// the pull request drops both; with an image bump besides, a change made in Git
	for _, pr := range []string{fix[1], bumped} {
		r := rebasegen(t, "check", "-d", pr, "-l", live, "-n", fix[5], "--rules", rules)
		if r.code != exitPending || !strings.Contains(r.stdout, "stale: "+rules+" would change") || !strings.Contains(r.stdout, dnsPolicy) ||
			!strings.Contains(r.stdout, protocol) || strings.Contains(r.stderr, "is not stale") {
			t.Errorf("check -d %s: exit %d, stdout:\n%s\nstderr:\n%s\nwant exit 3, the rules stale, their regeneration copying dnsPolicy and the ports' protocol", filepath.Base(pr), r.code, r.stdout, r.stderr)
		}
	}
	// regenerated as the check says, the rules hold before the deploy and after it
	regenerated := filepath.Join(dir, "regenerated.yml")
	if r := rebasegen(t, "generate", "-d", fix[1], "-l", live, "-n", fix[5], "--output-file", regenerated); r.code != 0 {
		t.Fatalf("generate: exit %d\n%s", r.code, r.stderr)
	}
	for _, capture := range []string{live, fix[3]} {
		if r := rebasegen(t, "check", "-d", fix[1], "-l", capture, "-n", fix[5], "--rules", regenerated); r.code != 0 || !strings.Contains(r.stdout, "0 residual ghost diffs, 0 unknown fields, 0 stale generated files") {
			t.Errorf("check of the regenerated rules against %s: exit %d\n%s%s", capture, r.code, r.stdout, r.stderr)
		}
	}
}

// Regression (issue 24, newcomer7 N7-10): a pull request declaring part of a map the server
// defaults (a Deployment's strategy: {rollingUpdate: {maxSurge: 1}}). The committed rules copy the
// whole strategy from [new, existing], which now takes the manifest's part: the defaulted type and
// maxUnavailable are ghost diffs this deploy and every later one leaves. check failed the gate on
// them and at once called the rules "not stale: regenerate after the deploy", which the red gate
// blocks. Regenerating now is the path to green: the rules are stale, the regeneration they show
// copies the two fields, and kapp's engine keeps the Deployment under the regenerated rules.
func TestPartlyDeclaredDefaultedMapIsStale(t *testing.T) {
	fix := scenario(t, "hpa-replicas")
	dir := t.TempDir()
	rules, regenerated := filepath.Join(dir, "rules.yml"), filepath.Join(dir, "regenerated.yml")
	if r := rebasegen(t, append([]string{"generate"}, append(fix, "--output-file", rules)...)...); r.code != 0 {
		t.Fatalf("generate: exit %d\n%s", r.code, r.stderr)
	}
	desired := readFile(t, fix[1])
	partly := strings.Replace(desired, "            memory: 64Mi\n", "            memory: 64Mi\n  strategy:\n    rollingUpdate:\n      maxSurge: 1\n", 1)
	if partly == desired || !strings.Contains(readFile(t, rules), "strategy)$\"}]") {
		t.Fatal("fixture changed: no Deployment to declare maxSurge on, or no whole-strategy copy in its rules")
	}
	pr := filepath.Join(dir, "pr.yaml")
	if err := os.WriteFile(pr, []byte(partly), 0o644); err != nil {
		t.Fatal(err)
	}
	args := func(rules string) []string {
		return []string{"check", "-d", pr, "-l", fix[3], "-n", fix[5], "--rules", rules}
	}
	r := rebasegen(t, args(rules)...)
	for _, want := range []string{"residual ghost diff: apps/Deployment hpa-replicas/web spec.strategy.type (defaulted)", "stale: " + rules + " would change",
		"regenerate it now", "+  - [spec, strategy, type]", "+  - [spec, strategy, rollingUpdate, maxUnavailable]"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("check: missing %q: exit %d, stdout:\n%s\nstderr:\n%s", want, r.code, r.stdout, r.stderr)
		}
	}
	if r.code != exitPending || strings.Contains(r.stderr, "is not stale") {
		t.Errorf("check: exit %d, want 3 and no \"not stale\" note:\n%s", r.code, r.stderr)
	}
	if r := rebasegen(t, "generate", "-d", pr, "-l", fix[3], "-n", fix[5], "--output-file", regenerated); r.code != 0 {
		t.Fatalf("generate from the pull request: exit %d\n%s", r.code, r.stderr)
	}
	if r := rebasegen(t, args(regenerated)...); r.code != 0 || !strings.Contains(r.stdout, "0 residual ghost diffs, 0 unknown fields, 0 stale generated files") {
		t.Errorf("check of the regenerated rules: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
