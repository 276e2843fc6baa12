package generator_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	ctldiff "carvel.dev/kapp/pkg/kapp/diff"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/emit"
	"github.com/rebasegen/rebasegen/generator/internal/kapptest"
	"github.com/rebasegen/rebasegen/generator/verdict"
	"github.com/rebasegen/rebasegen/internal/format"
	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// A field kapp last applied as info (kapp.k14s.io/original), edited on the cluster to debug by a
// person (kubectl-edit owns it) and changed in Git to warn: kapp's deploy applies warn over the
// person's debug. check reported the drift alone ("pending": [], --fail-on-drift's exit 3 the only
// sign), its evidence saying nothing of Git, and explain showed warn -> debug with no word of what
// kapp last applied (issue 24, newcomer11 N11-1). Now the change made in Git is a pending change,
// counted, beside the person's edit as drift, in every format, with the three values; a Secret's
// masked. Oracle: the values written in the inputs, and kapp's engine, which updates the
// ConfigMap to the manifest's value under either base.
func TestAFieldChangedInGitAndOnTheClusterIsPendingAndDrift(t *testing.T) {
	in := fixture("human-drift")
	manifest, err := os.ReadFile(in.Desired[0])
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(string(manifest), "  log-level: info\n", "  log-level: warn\n", 1)
	if changed == string(manifest) {
		t.Fatal("the fixture's manifest does not declare log-level: info")
	}
	generated, _ := generatedText(t, in, emit.Options{}) // rules for the fixture as deployed, as in CI
	rules := []string{writeFile(t, "rules.yml", generated)}
	in.Desired = []string{writeFile(t, "desired.yaml", changed)}
	cm := liveObject(t, in.Live[0], "shop-config")
	var original map[string]any
	if err := json.Unmarshal([]byte(cm.GetAnnotations()[kappconv.Original]), &original); err != nil {
		t.Fatal(err)
	}
	applied, live := original["data"].(map[string]any)["log-level"], cm.Object["data"].(map[string]any)["log-level"]
	if applied != "info" || live != "debug" {
		t.Fatalf("the fixture: kapp last applied %v, the live object holds %v; want info, debug", applied, live)
	}
	if !kapptest.MakesBoth(t, in.Desired, in.Live[0], in.Namespace, rules, func(ch ctldiff.Change) bool {
		return ch.Op() == ctldiff.ChangeOpUpdate && ch.NewResource().Name() == "shop-config" &&
			ch.NewResource().UnstructuredObject()["data"].(map[string]any)["log-level"] == "warn"
	}) {
		t.Fatal("kapp does not update the ConfigMap to warn under both bases: the test's premise")
	}

	const subject = "core/ConfigMap human-drift/shop-config data.log-level: "
	const threeWay = "kapp last applied info (kapp.k14s.io/original)"
	outs := threeWayOutputs(t, in, rules)
	for _, w := range []string{
		"text pending change from Git (kapp applies it on deploy): " + subject + "a change made in Git: " + threeWay + "; the manifest now declares warn, which this deploy applies over kubectl-edit's debug",
		"text warning: drift: " + subject + "managedFields: kubectl-edit changed it",
		"Git changed it too: " + threeWay + ", and the manifest now declares warn, which this deploy applies over kubectl-edit's debug",
		"text check: kapp keeps 0/2 paired resources, 1 pending change from Git, applied on deploy; 0 residual ghost diffs, 0 unknown fields, 0 stale generated files, 3 drift warnings",
		"github ::warning file=" + in.Desired[0] + ",line=6::pending change from Git (kapp applies it on deploy): " + subject + "a change made in Git: " + threeWay,
		"github ::warning file=" + in.Desired[0] + ",line=6::drift: " + subject + "managedFields: kubectl-edit",
		`json pending/pending core/ConfigMap human-drift/shop-config data.log-level "info" "warn" "debug"`,
		`json drift/drift core/ConfigMap human-drift/shop-config data.log-level "info" "warn" "debug"`,
		"explain   data.log-level  drift  warn -> debug  managedFields: kubectl-edit changed it",
		"pending 1 (changes made in Git: this deploy applies them; 1 of them to a field that drifted too, its row drift)",
		`explain-json data.log-level drift "info"`,
	} {
		if !strings.Contains(outs, w) {
			t.Errorf("want %q in:\n%s", w, outs)
		}
	}
	c, err := generator.Check(in, rules)
	if err != nil {
		t.Fatal(err)
	}
	logLevelDriftAndPending(t, c)

	// A rule keeping the cluster's value hides the change made in Git: kapp applies debug (its
	// engine, under either base), no pending change, and the drift says so.
	keep := append(rules, keepLogLevelRules(t))
	for _, ch := range kapptest.BothBases(t, in.Desired, in.Live[0], in.Namespace, keep) {
		if ch.NewResource() != nil && ch.NewResource().Name() == "shop-config" && ch.NewResource().UnstructuredObject()["data"].(map[string]any)["log-level"] != "debug" {
			t.Fatalf("kapp (against last applied: %v) applies %v under the rule keeping the cluster's value: the test's premise", ch.AgainstLastApplied, ch.NewResource().UnstructuredObject()["data"])
		}
	}
	hiddenUnderKeep(t, in, keep, subject, threeWay+", and the manifest now declares warn, which the rules in force keep this deploy from applying (hidden, reported apart); kept by "+keep[1]+":4")

	// A Secret's value, the same three ways: every output masks it, the values included.
	secret := func(file, name string, data map[string]string, original string) string {
		return fixtureObject(t, file, name, func(o map[string]any) {
			o["kind"] = "Secret"
			enc := map[string]any{}
			for k, v := range data {
				enc[k] = base64.StdEncoding.EncodeToString([]byte(v))
			}
			o["data"] = enc
			u := &unstructured.Unstructured{Object: o}
			if a := u.GetAnnotations(); a != nil {
				a[kappconv.IdentityAnnotation] = strings.Replace(a[kappconv.IdentityAnnotation], "/ConfigMap/", "/Secret/", 1)
				a[kappconv.Original] = original
				u.SetAnnotations(a)
			}
		})
	}
	orig := strings.NewReplacer(`"kind":"ConfigMap"`, `"kind":"Secret"`, `"checkout-v2=false"`, `"`+base64.StdEncoding.EncodeToString([]byte("checkout-v2=false"))+`"`,
		`"info"`, `"`+base64.StdEncoding.EncodeToString([]byte("s3cr3t-applied"))+`"`).Replace(cm.GetAnnotations()[kappconv.Original])
	sin := generator.Inputs{Namespace: in.Namespace,
		Desired: []string{secret(in.Desired[0], "shop-config", map[string]string{"log-level": "s3cr3t-git", "feature-flags": "checkout-v2=false"}, "")},
		Live:    []string{secret(in.Live[0], "shop-config", map[string]string{"log-level": "s3cr3t-edited", "feature-flags": "checkout-v2=false"}, orig)}}
	souts := threeWayOutputs(t, sin, nil)
	for _, w := range []string{
		"text pending change from Git (kapp applies it on deploy): core/Secret human-drift/shop-config data.log-level: a change made in Git: kapp last applied (masked) (kapp.k14s.io/original); the manifest now declares (masked), which this deploy applies over kubectl-edit's (masked)",
		`json pending/pending core/Secret human-drift/shop-config data.log-level "(masked)" "(masked)" "(masked)"`,
		`explain-json data.log-level drift "(masked)"`,
	} {
		if !strings.Contains(souts, w) {
			t.Errorf("Secret: want %q in:\n%s", w, souts)
		}
	}
	for _, v := range []string{"s3cr3t-applied", "s3cr3t-edited", "s3cr3t-git"} {
		if strings.Contains(souts, v) || strings.Contains(souts, base64.StdEncoding.EncodeToString([]byte(v))) {
			t.Errorf("Secret: its value %s is shown:\n%s", v, souts)
		}
	}
}

// columns are the spaces aligning explain's columns.
var columns = regexp.MustCompile(" {2,}")

// liveObject is the object named name of a fixture file.
func liveObject(t *testing.T, file, name string) *unstructured.Unstructured {
	t.Helper()
	var out *unstructured.Unstructured
	fixtureObject(t, file, name, func(o map[string]any) { out = &unstructured.Unstructured{Object: o} })
	return out
}

// threeWayOutputs is check's text, github and JSON (its pending and drift lists, one line each:
// "json <list>/<class> <resource> <path> <original> <desired> <live>") and explain's text and
// JSON (its drift fields changed in Git too: "explain-json <path> <class> <original>") for in
// and the rule files, each line after the name of its format.
func threeWayOutputs(t *testing.T, in generator.Inputs, rules []string) string {
	t.Helper()
	c, err := generator.Check(in, rules)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fs := c.Findings(verdict.Gate{})
	for _, f := range []format.Format{format.Text, format.GitHub} {
		var out bytes.Buffer
		if err := verdict.Write(&out, f, verdict.CheckReport(c.Verdict, fs, c.Lint), filepath.Join(t.TempDir(), "rules.yml")); err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			b.WriteString(string(f) + " " + l + "\n")
		}
	}
	var checkJSON bytes.Buffer
	if err := verdict.Write(&checkJSON, format.JSON, verdict.CheckReport(c.Verdict, fs, c.Lint), ""); err != nil {
		t.Fatal(err)
	}
	var j struct{ Pending, Drift []map[string]any }
	if err := json.Unmarshal(checkJSON.Bytes(), &j); err != nil {
		t.Fatal(err)
	}
	js := func(m map[string]any, key string) string {
		v, ok := m[key]
		if !ok {
			return "-"
		}
		bs, _ := json.Marshal(v)
		return string(bs)
	}
	for list, fjs := range map[string][]map[string]any{"pending": j.Pending, "drift": j.Drift} {
		for _, f := range fjs {
			b.WriteString(fmt.Sprintf("json %s/%s %s %s %s %s %s\n", list, f["class"], f["resource"], f["path"], js(f, "original"), js(f, "desired"), js(f, "live")))
		}
	}
	rep, _, err := generator.Explain(in)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := emit.WriteExplainText(&out, rep, emit.Palette{}, 0); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		b.WriteString("explain " + columns.ReplaceAllString(l, "  ") + "\n")
	}
	var explainJSON bytes.Buffer
	if err := emit.WriteExplainJSON(&explainJSON, rep); err != nil {
		t.Fatal(err)
	}
	var e struct {
		Resources []struct{ Fields []map[string]any }
	}
	if err := json.Unmarshal(explainJSON.Bytes(), &e); err != nil {
		t.Fatal(err)
	}
	for _, r := range e.Resources {
		for _, f := range r.Fields {
			if f["changedInGit"] == true {
				b.WriteString(fmt.Sprintf("explain-json %s %s %s\n", f["path"], f["class"], js(f, "original")))
			}
		}
	}
	return b.String()
}

// The same field, kapp last applied info and kubectl edit set debug, now removed from the
// manifest: kapp's update leaves it out under either base, removing the person's debug. check
// reported the drift alone (no pending change, nothing of Git in its evidence, "pending": []) and
// explain's summary counted no pending change (issue 24, fix28e). Now the removal made in Git is
// a pending change beside the drift, in every format, --fail-on-drift failing on the drift alone;
// a rule keeping the cluster's value hides it, as kapp's engine keeps debug.
func TestAFieldRemovedInGitThatAPersonChangedIsPendingAndDrift(t *testing.T) {
	in := fixture("human-drift")
	manifest, err := os.ReadFile(in.Desired[0])
	if err != nil {
		t.Fatal(err)
	}
	removed := strings.Replace(string(manifest), "  log-level: info\n", "", 1)
	if removed == string(manifest) {
		t.Fatal("the fixture's manifest does not declare log-level: info")
	}
	generated, _ := generatedText(t, in, emit.Options{})
	rules := []string{writeFile(t, "rules.yml", generated)}
	in.Desired = []string{writeFile(t, "desired.yaml", removed)}
	if !kapptest.MakesBoth(t, in.Desired, in.Live[0], in.Namespace, rules, func(ch ctldiff.Change) bool {
		if ch.NewResource() == nil {
			return false
		}
		_, holds := ch.NewResource().UnstructuredObject()["data"].(map[string]any)["log-level"]
		return ch.Op() == ctldiff.ChangeOpUpdate && ch.NewResource().Name() == "shop-config" && !holds
	}) {
		t.Fatal("kapp does not remove log-level from the ConfigMap under both bases: the test's premise")
	}

	const subject = "core/ConfigMap human-drift/shop-config data.log-level: "
	const threeWay = "kapp last applied info (kapp.k14s.io/original)"
	outs := threeWayOutputs(t, in, rules)
	for _, w := range []string{
		"text pending change from Git (kapp applies it on deploy): " + subject + "a change made in Git: " + threeWay + "; the manifest no longer declares it, so this deploy removes kubectl-edit's debug (drift, reported apart)",
		"Git changed it too: " + threeWay + ", and the manifest no longer declares it, so this deploy removes kubectl-edit's debug (a pending change from Git, reported apart)",
		"text check: kapp keeps 0/2 paired resources, 1 pending change from Git, applied on deploy;",
		"github ::warning file=" + in.Desired[0] + ",line=5::pending change from Git (kapp applies it on deploy): " + subject + "a change made in Git: " + threeWay,
		`json pending/pending core/ConfigMap human-drift/shop-config data.log-level "info" - "debug"`,
		`json drift/drift core/ConfigMap human-drift/shop-config data.log-level "info" - "debug"`,
		"pending 1 (changes made in Git: this deploy applies them; 1 of them to a field that drifted too, its row drift)",
		`explain-json data.log-level drift "info"`,
	} {
		if !strings.Contains(outs, w) {
			t.Errorf("want %q in:\n%s", w, outs)
		}
	}
	c, err := generator.Check(in, rules)
	if err != nil {
		t.Fatal(err)
	}
	logLevelDriftAndPending(t, c)

	keep := append(rules, keepLogLevelRules(t))
	if !kapptest.MakesBoth(t, in.Desired, in.Live[0], in.Namespace, keep, func(ch ctldiff.Change) bool {
		return ch.NewResource() != nil && ch.NewResource().Name() == "shop-config" && ch.NewResource().UnstructuredObject()["data"].(map[string]any)["log-level"] == "debug"
	}) {
		t.Fatal("kapp does not keep log-level debug under the rule keeping the cluster's value, under both bases: the test's premise")
	}
	hiddenUnderKeep(t, in, keep, subject, threeWay+", and the manifest no longer declares it, which the rules in force keep this deploy from removing it (hidden, reported apart); kept by "+keep[1]+":4")
}

// logLevelDriftAndPending asserts the three-way report of data.log-level: a drift, failing as
// --fail-on-drift says, beside a pending change from Git that never fails the gate.
func logLevelDriftAndPending(t *testing.T, c *generator.Checked) {
	t.Helper()
	for _, failOnDrift := range []bool{false, true} {
		var kinds []string
		for _, f := range c.Findings(verdict.Gate{FailOnDrift: failOnDrift}) {
			if f.Path == "data.log-level" {
				kinds = append(kinds, fmt.Sprintf("%s:%v", f.Kind, f.Fails))
			}
		}
		if got, want := strings.Join(kinds, " "), fmt.Sprintf("drift:%v pending:false", failOnDrift); got != want {
			t.Errorf("--fail-on-drift=%v: the field's findings failing: %s, want %s", failOnDrift, got, want)
		}
	}
}

// keepLogLevelRules writes a rule keeping the cluster's data.log-level of every ConfigMap.
func keepLogLevelRules(t *testing.T) string {
	return writeFile(t, "keep.yml", `apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- type: copy
  sources: [existing]
  paths:
  - [data, log-level]
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: v1, kind: ConfigMap}
`)
}

// hiddenUnderKeep asserts that under keep (the rules and keepLogLevelRules) every output calls
// the change made in Git hidden by the keeping rule, with note after "Git changed it too: ",
// and none calls it pending: kapp never applies it.
func hiddenUnderKeep(t *testing.T, in generator.Inputs, keep []string, subject, note string) {
	t.Helper()
	kouts := threeWayOutputs(t, in, keep)
	for _, w := range []string{
		"text hidden: " + subject + "a change made in Git is hidden by " + keep[1] + ":4",
		"Git changed it too: " + note,
	} {
		if !strings.Contains(kouts, w) {
			t.Errorf("under the rule keeping the cluster's value: want %q in:\n%s", w, kouts)
		}
	}
	if strings.Contains(kouts, "text pending change") || strings.Contains(kouts, "json pending/") {
		t.Errorf("under the rule keeping the cluster's value: a pending change kapp never applies:\n%s", kouts)
	}
}
