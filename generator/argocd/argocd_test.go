package argocd_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/argocd"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// analyze analyses fixtures/<name> (a path), whose objects are in the namespace of its last
// element.
func analyze(t *testing.T, name string) *generator.Analysis {
	t.Helper()
	dir := filepath.Join("..", "..", "fixtures", name)
	a, err := generator.Analyze(generator.Inputs{Desired: []string{filepath.Join(dir, "desired.yaml")},
		Live: []string{filepath.Join(dir, "live.yaml")}, Namespace: filepath.Base(name)})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// roundTrip writes the ignores in format f and reads them back as check reads a file.
func roundTrip(t *testing.T, ignores []argocd.Ignore, f argocd.Format) argocd.Settings {
	t.Helper()
	var b bytes.Buffer
	if err := argocd.Write(&b, ignores, f, "my-app", nil); err != nil {
		t.Fatal(err)
	}
	objs, err := load.Bytes("generated", b.Bytes())
	if err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	s, err := argocd.Read(objs, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The HPA's replicas: Argo CD shows the Deployment OutOfSync for spec.replicas only (it does not
// show the fields the manifest leaves to the server's defaults); the ignore is that field of that
// Deployment, and under it Argo CD's StateDiff reports the Deployment in sync while a change of
// any other declared value (the image) still shows.
func TestHPAReplicas(t *testing.T) {
	a := analyze(t, "hpa-replicas")
	res, err := argocd.Synthesize(a.Report, argocd.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	want := []argocd.Ignore{{Group: "apps", Kind: "Deployment", Namespace: "hpa-replicas", Name: "web", JSONPointers: []string{"/spec/replicas"}}}
	if len(res.Ignores) != 1 || res.Ignores[0].Name != "web" || !slices.Equal(res.Ignores[0].JSONPointers, want[0].JSONPointers) ||
		len(res.Ignores[0].JQPathExpressions) != 0 || res.Ignores[0].Namespace != "hpa-replicas" {
		t.Fatalf("ignores = %+v, want %+v", res.Ignores, want)
	}
	for _, r := range a.Report.Resources {
		if r.ID.Kind != "Deployment" {
			continue
		}
		d, l, err := r.Objects()
		if err != nil {
			t.Fatal(err)
		}
		plain, err := argocd.Diff(d.Unstructured, l.Unstructured, argocd.Settings{})
		if err != nil || !plain.Modified {
			t.Fatalf("without ignores Argo CD shows the Deployment in sync (err %v): the fixture is not what this test is about", err)
		}
		ignored, err := argocd.Diff(d.Unstructured, l.Unstructured, argocd.Settings{Ignores: want})
		if err != nil || ignored.Modified {
			t.Fatalf("with /spec/replicas ignored Argo CD shows the Deployment OutOfSync (err %v)", err)
		}
	}
	for _, f := range argocd.Formats() {
		v, err := argocd.Verify(a.Report, roundTrip(t, res.Ignores, f), res.Ghost)
		if err != nil {
			t.Fatal(err)
		}
		if !v.OK() || v.InSync != 1 || v.Ghost != 1 || v.Mutation == 0 {
			t.Errorf("%s: verification %+v, want the Deployment in sync and no change hidden", f, v)
		}
		if len(v.Masked) != 1 || v.Masked[0].Path != "spec.replicas" {
			t.Errorf("%s: masked %+v, want spec.replicas (the HPA owns it); %+v", f, v.Masked, v)
		}
	}
}

// A hand-written ignore of a declared field nothing but Git sets (the container's image, by
// index) hides the change made in Git: the mutation check names it.
func TestIgnoreHidingGitChange(t *testing.T) {
	a := analyze(t, "hpa-replicas")
	res, err := argocd.Synthesize(a.Report, argocd.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	s := argocd.Settings{Ignores: []argocd.Ignore{{Group: "apps", Kind: "Deployment", JSONPointers: []string{"/spec/replicas", "/spec/template/spec/containers/0/image"}}}}
	v, err := argocd.Verify(a.Report, s, res.Ghost)
	if err != nil {
		t.Fatal(err)
	}
	hidden := hiddenPaths(v)
	if v.OK() || !slices.Contains(hidden, "spec.template.spec.containers[name=web].image") {
		t.Errorf("hidden = %v, want the image", hidden)
	}
}

// On every captured scenario the generated ignores, written and read back in either format, make
// Argo CD's StateDiff report every ghost-only resource in sync and hide no declared value
// nothing but Git sets.
func TestFixtures(t *testing.T) {
	dirs, err := os.ReadDir(filepath.Join("..", "..", "fixtures"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join("..", "..", "fixtures", d.Name(), "live.yaml")); err != nil || strings.HasPrefix(d.Name(), "v1.") {
			continue
		}
		t.Run(d.Name(), func(t *testing.T) {
			a := analyze(t, d.Name())
			res, err := argocd.Synthesize(a.Report, argocd.Settings{})
			if err != nil {
				t.Fatal(err)
			}
			v, err := argocd.Verify(a.Report, roundTrip(t, res.Ignores, argocd.Application), res.Ghost)
			if err != nil {
				t.Fatal(err)
			}
			if !v.OK() || v.InSync != v.Ghost {
				t.Errorf("%+v (ignores %+v)", v, res.Ignores)
			}
			// argocd-cm names no resource: its entries apply to every resource of the kind, so
			// the ignores may hide declared values of the kind's other resources (generate then
			// refuses), never of the resources they were made for, and keep the same in sync.
			v, err = argocd.Verify(a.Report, roundTrip(t, res.Ignores, argocd.ArgoCDCM), res.Ghost)
			if err != nil {
				t.Fatal(err)
			}
			if len(v.OutSync) > 0 || v.InSync != v.Ghost {
				t.Errorf("argocd-cm: %+v", v)
			}
			for _, h := range v.Hidden {
				for _, ig := range res.Ignores {
					if ig.Kind == h.Resource.Kind && ig.Group == h.Resource.Group && ig.Name == h.Resource.Name && ig.Namespace == h.Resource.Namespace {
						t.Errorf("argocd-cm hides %s %s, a field of a resource the ignores were made for", h.Resource, h.Path)
					}
				}
			}
		})
	}
}

// Lint: a pointer through a list index warns; jq that selects a whole object or top-level field,
// or does not compile, is an error; a pointer or jq expression naming one field is neither.
func TestLintSettings(t *testing.T) {
	a := analyze(t, "hpa-replicas")
	s := argocd.Settings{Ignores: []argocd.Ignore{{Group: "apps", Kind: "Deployment",
		JSONPointers:      []string{"/spec/replicas", "/spec/template/spec/containers/0/image"},
		JQPathExpressions: []string{".spec", ".", ".spec.template.spec.containers[] | select(.name == \"web\") | .image", ".spec[", ".metadata.labels"}}}}
	got := map[string]bool{}
	for _, l := range argocd.LintSettings(a.Report, s) {
		got[l.Where] = l.Error
	}
	want := map[string]bool{
		"apps/Deployment /spec/template/spec/containers/0/image": false,
		"apps/Deployment .spec":                                  true,
		"apps/Deployment .":                                      true,
		"apps/Deployment .spec[":                                 true,
	}
	if len(got) != len(want) {
		t.Errorf("lints %v, want %v", got, want)
	}
	for k, e := range want {
		if ge, ok := got[k]; !ok || ge != e {
			t.Errorf("%s: lint %v (found %v), want error=%v", k, ge, ok, e)
		}
	}
}

// settingsOf reads Argo CD settings from YAML, as check reads --rules.
func settingsOf(t *testing.T, doc string) argocd.Settings {
	t.Helper()
	objs, err := load.Bytes("rules.yml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	s, err := argocd.Read(objs, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// synthesizeAndVerify synthesizes ignores over the rules s already holds and verifies those rules
// (s, not the ignores synthesized) as Argo CD applies them.
func synthesizeAndVerify(t *testing.T, a *generator.Analysis, s argocd.Settings) (argocd.Result, argocd.Verification) {
	t.Helper()
	res, err := argocd.Synthesize(a.Report, s)
	if err != nil {
		t.Fatal(err)
	}
	v, err := argocd.Verify(a.Report, s, res.Ghost)
	if err != nil {
		t.Fatal(err)
	}
	return res, v
}

// argocd-cm keys apply as Argo CD's ignore normalizer matches them: a core kind's key names the
// kind alone ("Service"), and a key may be a glob. The mutation check must judge the resources
// they apply to, so a change made in Git that they hide is found.
func TestArgoCDCMKeysApplyAsArgoCDMatchesThem(t *testing.T) {
	a := analyze(t, filepath.Join("argocd", "argo-cabundle"))
	for _, tc := range []struct{ key, body, kind, path string }{
		{"Service", "jsonPointers: [/spec/ports]", "Service", "spec.ports["},
		{"admissionregistration.k8s.io_*", "jqPathExpressions: ['.webhooks[] | .clientConfig']", "MutatingWebhookConfiguration", ".clientConfig.service."},
	} {
		s := settingsOf(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: argocd-cm, namespace: argocd}\ndata:\n  resource.customizations.ignoreDifferences."+
			tc.key+": \""+tc.body+"\"\n")
		_, v := synthesizeAndVerify(t, a, s)
		found := false
		for _, h := range v.Hidden {
			found = found || h.Resource.Kind == tc.kind && strings.Contains(h.Path, tc.path)
		}
		if !found {
			t.Errorf("key %s: hidden %+v, want a %s path holding %q", tc.key, v.Hidden, tc.kind, tc.path)
		}
	}
}

// argocd-cm's resource.compareoptions decide whether Argo CD ignores status: with
// ignoreResourceStatusField none, a manifest declaring a status Argo CD cannot make true keeps
// the resource OutOfSync whatever the ignores.
func TestCompareOptionsStatus(t *testing.T) {
	dir := t.TempDir()
	fixture := filepath.Join("..", "..", "fixtures", "argocd", "argo-hpa")
	desired, err := os.ReadFile(filepath.Join(fixture, "desired.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	desired = bytes.Replace(desired, []byte("\n---\n"), []byte("\nstatus: {replicas: 1}\n---\n"), 1)
	if err := os.WriteFile(filepath.Join(dir, "desired.yaml"), desired, 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := generator.Analyze(generator.Inputs{Desired: []string{filepath.Join(dir, "desired.yaml")},
		Live: []string{filepath.Join(fixture, "live.yaml")}, Namespace: "argo-hpa"})
	if err != nil {
		t.Fatal(err)
	}
	const app = "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: argo-hpa, namespace: argocd}\nspec:\n  ignoreDifferences:\n  - {group: apps, kind: Deployment, jsonPointers: [/spec/replicas]}\n"
	for _, tc := range []struct {
		options string
		status  bool // Argo CD shows status
	}{
		{"", false},
		{"ignoreResourceStatusField: all", false},
		{"ignoreResourceStatusField: none", true},
		{"ignoreResourceStatusField: off", true},
		{"ignoreResourceStatusField: crd", true},
	} {
		doc := app
		if tc.options != "" {
			doc += "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: argocd-cm, namespace: argocd}\ndata:\n  resource.compareoptions: \"" + tc.options + "\"\n"
		}
		s := settingsOf(t, doc)
		res, v := synthesizeAndVerify(t, a, s)
		shown := false
		for _, l := range res.Left {
			shown = shown || strings.HasPrefix(l.Path, "status")
		}
		if shown != tc.status || v.InSync == 1 == tc.status {
			t.Errorf("%q: status shown %v, in sync %d of %d: want status shown %v", tc.options, shown, v.InSync, v.Ghost, tc.status)
		}
	}
}

// Argo CD settings of the wrong shape are errors naming the file, document and field: the API
// server refuses such an Application, and Argo CD refuses such argocd-cm keys.
func TestReadRefusesWhatArgoCDRefuses(t *testing.T) {
	const cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: argocd-cm, namespace: argocd}\n"
	for doc, want := range map[string]string{
		"apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: a}\nspec:\n  ignoreDifferences: {kind: Deployment}\n": "rules.yml: document 1 (line 1): spec.ignoreDifferences: not a list",
		"apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: a}\nspec:\n  ignoreDifferences: x\n":                  "rules.yml: document 1 (line 1): spec.ignoreDifferences: not a list",
		cm + "data: x\n": "rules.yml: document 1 (line 1): data: not a map",
		cm + "data:\n  resource.customizations.ignoreDifferences.apps_Deployment: {jsonPointers: [/spec/replicas]}\n": `data["resource.customizations.ignoreDifferences.apps_Deployment"]: not a string`,
		cm + "data:\n  resource.customizations.ignoreDifferences.a_b_C: \"jsonPointers: [/x]\"\n":                     "Argo CD refuses the key",
		cm + "data:\n  resource.compareoptions: {ignoreResourceStatusField: none}\n":                                  `data["resource.compareoptions"]: not a string`,
		// Argo CD reads the argocd-cm of the namespace it runs in, never two merged.
		cm + "data: {a: b}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: argocd-cm, namespace: other}\ndata:\n  resource.customizations.ignoreDifferences.apps_Deployment: \"jsonPointers: [/spec]\"\n": `rules.yml: document 2 (line 5): a second argocd-cm (namespace "other"; the first: rules.yml: document 1 (line 1), namespace "argocd")`,
		// Keys are case-sensitive, as the API server stores them (probe6 finding 1: jsonpointers
		// beside jsonPointers replaced the list Argo CD uses, and check judged the one the cluster
		// drops).
		"apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: a}\nspec:\n  ignoreDifferences:\n  - {kind: Deployment, jsonPointers: [/spec/replicas, /spec/template], jsonpointers: [/spec/replicas]}\n": "rules.yml: document 1 (line 1): spec.ignoreDifferences[0].jsonpointers: not a key of an ignoreDifferences entry (they are case-sensitive",
		"apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: a}\nspec:\n  ignoreDifferences:\n  - {kind: Deployment}\n  - {Kind: Deployment, jqPathExpressions: [.spec.replicas]}\n":                    "rules.yml: document 1 (line 1): spec.ignoreDifferences[1].Kind: not a key",
		// A jq expression is bounded before it is parsed (probe5 finding 19: 300000 levels took 1.2 GB).
		jqApp(strings.Repeat("(", 1001) + ".spec.replicas" + strings.Repeat(")", 1001)): "rules.yml: document 1 (line 1): spec.ignoreDifferences[0].jqPathExpressions[1]: nested 1001 levels deep, past rebasegen's bound of 1000 levels",
		jqApp(".spec.replicas" + strings.Repeat(" ", 70000)):                            "rules.yml: document 1 (line 1): spec.ignoreDifferences[0].jqPathExpressions[1]: 70014 bytes long, past rebasegen's bound of 65536 bytes",
	} {
		objs, err := load.Bytes("rules.yml", []byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := argocd.Read(objs, nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one holding %q", doc, err, want)
		}
	}
}

// jqApp is an Application whose one ignore holds a harmless jq expression and expr.
func jqApp(expr string) string {
	return "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: a}\nspec:\n  ignoreDifferences:\n  - kind: Deployment\n    jqPathExpressions: ['.metadata.labels', '" + expr + "']\n"
}

// analyzeFiles analyses desired and live YAML written to files, in namespace ns.
func analyzeFiles(t *testing.T, desired, live, ns string) *generator.Analysis {
	t.Helper()
	dir := t.TempDir()
	d, l := filepath.Join(dir, "desired.yaml"), filepath.Join(dir, "live.yaml")
	if err := os.WriteFile(d, []byte(desired), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(l, []byte(live), 0o600); err != nil {
		t.Fatal(err)
	}
	a, err := generator.Analyze(generator.Inputs{Desired: []string{d}, Live: []string{l}, Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// A jq path query can compute a path element from a value (getpath([.data.password])): lint's
// findings on a Secret never carry its values (probe5 finding 14), and the expression is still
// found selecting a top-level field whole.
func TestLintNeverPrintsSecretValues(t *testing.T) {
	secret := "apiVersion: v1\nkind: Secret\nmetadata: {name: db, namespace: demo}\ntype: Opaque\ndata: {password: U1VQRVJTRUNSRVQ=}\nstringData: {token: TOKENSECRET42}\n"
	a := analyzeFiles(t, secret, secret, "demo")
	s := argocd.Settings{Ignores: []argocd.Ignore{{Kind: "Secret", JQPathExpressions: []string{
		"getpath([.data.password])", "getpath([.stringData.token])", ".data | getpath([.password + \"x\"])"}}}}
	lints := argocd.LintSettings(a.Report, s)
	errs := 0
	for _, l := range lints {
		f := l.Finding()
		for _, v := range []string{"U1VQRVJTRUNSRVQ", "SUPERSECRET", "TOKENSECRET42"} {
			if strings.Contains(f.Message, v) {
				t.Errorf("lint prints a Secret value: %s", f.Message)
			}
		}
		if l.Error && strings.Contains(l.What, "top-level field") {
			errs++
		}
	}
	if errs != 2 {
		t.Errorf("lints %+v, want the two getpath([.X.Y]) expressions found selecting a top-level field", lints)
	}
}

// An Application's ignoreDifferences apply only to the objects it tracks (probe5 finding 2,
// newcomer3 finding 12): on fixtures/argocd/argo-hpa, whose objects argo-hpa tracks, another
// Application's replicas ignore leaves the Deployment OutOfSync, as Argo CD's StateDiff under
// argo-hpa's (empty) ignores shows it; argo-hpa's own ignore makes it in sync.
func TestIgnoresApplyToTheirApplicationsObjects(t *testing.T) {
	a := analyze(t, filepath.Join("argocd", "argo-hpa"))
	if got := argocd.TrackedApps(a.Report); !slices.Equal(got, []string{"argo-hpa"}) {
		t.Fatalf("tracked apps %v, want [argo-hpa]", got)
	}
	app := func(name string) string {
		return "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: " + name + ", namespace: argocd}\nspec:\n  ignoreDifferences:\n  - {group: apps, kind: Deployment, jsonPointers: [/spec/replicas]}\n"
	}
	for _, tc := range []struct {
		rules  string
		inSync bool
	}{{app("other"), false}, {app("argo-hpa"), true}, {app("other") + "---\n" + app("argo-hpa"), true},
		// a tracking id naming argo-hpa alone names the one in Argo CD's namespace (probe6 finding 11)
		{strings.Replace(app("argo-hpa"), "namespace: argocd", "namespace: team-b", 1), false}} {
		s := settingsOf(t, tc.rules)
		_, v := synthesizeAndVerify(t, a, s)
		if got := v.Ghost > 0 && v.InSync == v.Ghost; got != tc.inSync {
			t.Errorf("%s: in sync %v (%+v), want %v", tc.rules, got, v, tc.inSync)
		}
		warned := slices.ContainsFunc(argocd.Tracking(a.Report, s), func(n argocd.Note) bool { return strings.Contains(n.Text, "tracks none of the objects") })
		if warned != (strings.Contains(tc.rules, "name: other") || strings.Contains(tc.rules, "team-b")) {
			t.Errorf("%s: tracking notes %q", tc.rules, argocd.Tracking(a.Report, s))
		}
	}
}

// A header line holding a newline (an input file's name in the Regenerate line) stays one
// comment: the file written parses as the Application alone (probe5 finding 12).
func TestWriteHeaderEscaped(t *testing.T) {
	var b bytes.Buffer
	if err := argocd.Write(&b, nil, argocd.Application, "a", []string{"Regenerate: rebasegen generate --desired 'nl\nkind: x.yaml'"}); err != nil {
		t.Fatal(err)
	}
	objs, err := load.Bytes("generated", b.Bytes())
	if err != nil || len(objs) != 1 || objs[0].GetKind() != "Application" {
		t.Fatalf("%v %v\n%s", err, objs, b.String())
	}
}

// The mutation check's verdict does not depend on the values it draws: a caBundle's base64 drawn
// anew may decode to the same bytes (Argo CD's comparison then shows nothing, with or without
// ignores), which must not take the value out of the check.
func TestVerifyDoesNotDependOnTheDraw(t *testing.T) {
	a := analyze(t, filepath.Join("argocd", "argo-cabundle"))
	res, err := argocd.Synthesize(a.Report, argocd.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	s := roundTrip(t, res.Ignores, argocd.ArgoCDCM) // argocd-cm: every Application
	var first string
	for i := range 40 {
		v, err := argocd.Verify(a.Report, s, res.Ghost)
		if err != nil {
			t.Fatal(err)
		}
		got := fmt.Sprintf("%d values, masked %v, hidden %v", v.Mutation, v.Masked, v.Hidden)
		if i == 0 {
			first = got
			if len(v.Masked) == 0 {
				t.Fatalf("no masked value: the test tells nothing (%s)", got)
			}
		} else if got != first {
			t.Fatalf("run %d: %s\nrun 0: %s", i, got, first)
		}
	}
}

// Apps in any namespace (probe6 finding 11): objects whose tracking id names team-a_argo-hpa are
// tracked by Application argo-hpa in namespace team-a. generate writes that Application (not
// one named team-a_argo-hpa, which the API server refuses), and its ignores, read back, apply to
// the objects; the same Application in Argo CD's own namespace, or in another, tracks none of
// them.
func TestAppsInAnyNamespace(t *testing.T) {
	dir := filepath.Join("..", "..", "fixtures", "argocd", "argo-hpa")
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	live := strings.NewReplacer("tracking-id: argo-hpa:", "tracking-id: team-a_argo-hpa:", `"argocd.argoproj.io/tracking-id":"argo-hpa:`, `"argocd.argoproj.io/tracking-id":"team-a_argo-hpa:`).Replace(read("live.yaml"))
	a := analyzeFiles(t, read("desired.yaml"), live, "argo-hpa")
	tracked := argocd.TrackedApps(a.Report)
	if !slices.Equal(tracked, []string{"team-a_argo-hpa"}) {
		t.Fatalf("tracked apps %v, want [team-a_argo-hpa]", tracked)
	}
	if !argocd.Names("argo-hpa", tracked[0]) || !argocd.Names("team-a_argo-hpa", tracked[0]) || argocd.Names("team-a", tracked[0]) {
		t.Errorf("Names: --app argo-hpa and team-a_argo-hpa must name %s, team-a not", tracked[0])
	}
	g, err := argocd.Generate(a.Report, argocd.Application, tracked[0], nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(g.Output), "metadata:\n  name: argo-hpa\n  namespace: team-a\n") {
		t.Errorf("generated:\n%s\nwant Application argo-hpa in namespace team-a", g.Output)
	}
	if v := g.Verification; v.Ghost == 0 || v.InSync != v.Ghost {
		t.Errorf("generated ignores read back: %+v, want every ghost-only resource in sync", v)
	}
	app := func(ns string) string {
		return "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: argo-hpa, namespace: " + ns + "}\nspec:\n  ignoreDifferences:\n  - {group: apps, kind: Deployment, jsonPointers: [/spec/replicas]}\n"
	}
	for ns, inSync := range map[string]bool{"team-a": true, "argocd": false, "team-b": false} {
		_, v := synthesizeAndVerify(t, a, settingsOf(t, app(ns)))
		if got := v.Ghost > 0 && v.InSync == v.Ghost; got != inSync {
			t.Errorf("Application argo-hpa in namespace %s: in sync %v (%+v), want %v", ns, got, v, inSync)
		}
	}
}

// A manifest's argocd.argoproj.io/ignore-differences annotation is a rule source (probe6 finding
// 5): Argo CD's StateDiff applies its pointers to that resource, so one naming the image hides a
// change made to it in Git; the mutation check must say so, and lint names the document.
func TestIgnoreAnnotationIsMutationChecked(t *testing.T) {
	dir := filepath.Join("..", "..", "fixtures", "argocd", "argo-hpa")
	desired, err := os.ReadFile(filepath.Join(dir, "desired.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	live, err := os.ReadFile(filepath.Join(dir, "live.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	annotated := strings.Replace(string(desired), "  name: web\n", "  name: web\n  annotations:\n    argocd.argoproj.io/ignore-differences: 'jsonPointers: [/spec/replicas, /spec/template/spec/containers/0/image]'\n", 1)
	if annotated == string(desired) {
		t.Fatal("the fixture's Deployment changed: no place for the annotation")
	}
	a := analyzeFiles(t, annotated, string(live), "argo-hpa")
	s, err := settingsOf(t, "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: argo-hpa, namespace: argocd}\nspec: {ignoreDifferences: []}\n").WithAnnotations(a.Report)
	if err != nil {
		t.Fatal(err)
	}
	_, v := synthesizeAndVerify(t, a, s)
	if !slices.ContainsFunc(v.Hidden, func(p argocd.Problem) bool { return p.Path == "spec.template.spec.containers[name=web].image" }) {
		t.Errorf("hidden %+v, want the image the annotation ignores", v.Hidden)
	}
	for _, p := range v.Hidden {
		if p.Path == "spec.replicas" {
			t.Errorf("hidden %+v: the HPA owns spec.replicas (masked)", p)
		}
	}
	lints := argocd.LintSettings(a.Report, s)
	if !slices.ContainsFunc(lints, func(l argocd.Lint) bool {
		return strings.HasSuffix(l.At.File, "desired.yaml") && strings.Contains(l.Where, "/spec/template/spec/containers/0/image")
	}) {
		t.Errorf("lints %+v, want the annotation's index pointer named at desired.yaml", lints)
	}
}

// The change Git holds is judged under the ignores, removals too (probe6 finding 7): a container's
// resources removed in Git under an ignore of them, and an image set in Git that a jq ignore
// singles out by value (no drawn value hits it), are hidden, as Argo CD's StateDiff in sync under
// the ignores and OutOfSync without them says; and a jq ignore matching only the image the
// manifest declares hides its removal, which the mutation check tries.
func TestChangeGitHoldsIsJudged(t *testing.T) {
	dir := filepath.Join("..", "..", "fixtures", "argocd", "argo-hpa")
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	desired, live := read("desired.yaml"), read("live.yaml")
	app := func(jq string) string {
		return "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: argo-hpa, namespace: argocd}\nspec:\n  ignoreDifferences:\n  - group: apps\n    kind: Deployment\n    jsonPointers: [/spec/replicas]\n    jqPathExpressions: ['" + jq + "']\n"
	}
	for _, tc := range []struct{ name, desired, rules, path string }{
		{"resources removed", strings.Replace(desired, "        resources:\n          requests:\n            cpu: 100m\n            memory: 64Mi\n", "", 1),
			app(`.spec.template.spec.containers[] | select(.name == "web") | .resources`), "spec.template.spec.containers[name=web].resources"},
		{"image singled out", strings.Replace(desired, "image: nginx:1.25", "image: evil/nginx:1.27", 1),
			app(`.spec.template.spec.containers[] | select(.image == "evil/nginx:1.27" or .image == "nginx:1.25") | .image`), "spec.template.spec.containers[name=web].image"},
		{"removal singled out", desired,
			app(`.spec.template.spec.containers[] | select(.image == "nginx:1.25") | .image`), "spec.template.spec.containers[name=web].image"},
	} {
		if tc.desired == desired && tc.name != "removal singled out" {
			t.Fatalf("%s: the fixture changed", tc.name)
		}
		a := analyzeFiles(t, tc.desired, live, "argo-hpa")
		s := settingsOf(t, tc.rules)
		for _, r := range a.Report.Resources { // the ground truth: Argo CD's StateDiff of the manifest as it is
			if r.ID.Kind != "Deployment" || tc.desired == desired {
				continue
			}
			d, l, err := r.Objects()
			if err != nil {
				t.Fatal(err)
			}
			under, err := argocd.Diff(d.Unstructured, l.Unstructured, s)
			if err != nil {
				t.Fatal(err)
			}
			replicasOnly := settingsOf(t, app(`.metadata.labels.none`))
			without, err := argocd.Diff(d.Unstructured, l.Unstructured, replicasOnly)
			if err != nil {
				t.Fatal(err)
			}
			if under.Modified || !without.Modified {
				t.Fatalf("%s: Argo CD shows the Deployment modified %v under the ignores, %v without the jq one: not what this case is about", tc.name, under.Modified, without.Modified)
			}
		}
		_, v := synthesizeAndVerify(t, a, s)
		if !slices.ContainsFunc(v.Hidden, func(p argocd.Problem) bool { return p.Path == tc.path }) {
			t.Errorf("%s: hidden %+v, want %s", tc.name, v.Hidden, tc.path)
		}
	}
}

// A field the manifest no longer declares, which the last applied configuration holds with the
// live value, is a removal made in Git that a sync applies: pending, not unknown (newcomer3
// finding 3(c)).
func TestRemovalMadeInGitIsPending(t *testing.T) {
	dir := filepath.Join("..", "..", "fixtures", "argocd", "argo-hpa")
	desired, err := os.ReadFile(filepath.Join(dir, "desired.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	live, err := os.ReadFile(filepath.Join(dir, "live.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	removed := strings.Replace(string(desired), "        resources:\n          requests:\n            cpu: 100m\n            memory: 64Mi\n", "", 1)
	a := analyzeFiles(t, removed, string(live), "argo-hpa")
	res, err := argocd.Synthesize(a.Report, argocd.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, l := range res.Left {
		if l.Path == "spec.template.spec.containers[name=web].resources" {
			found = true
			if l.Kind != verdict.KindPending || !strings.Contains(l.Reason, "a removal made in Git") {
				t.Errorf("%+v, want pending: a removal made in Git", l)
			}
		}
	}
	if !found {
		t.Errorf("left %+v, want the container's resources", res.Left)
	}
}

// Regression (probe8 P8-8): a jq expression whose result depends on something other than the
// object (the clock, the time zone, the environment) passed check on the day it ran: `if now <
// T then empty else .spec... end` ignores nothing until T, then hides every image change made in
// Git. Such an expression is refused, naming the file, the line and the builtin; keys and strings
// of the same names are not calls.
func TestJQReadingOutsideTheObjectIsRefused(t *testing.T) {
	app := func(expr string) string {
		return "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: web, namespace: argocd}\nspec:\n  ignoreDifferences:\n  - group: apps\n    kind: Deployment\n    jqPathExpressions:\n    - " + strconv.Quote(expr) + "\n"
	}
	for expr, builtin := range map[string]string{
		"if now < 1800000000 then empty else .spec.template.spec.containers[].image end": "now",
		".spec.template.spec.containers[] | select(now > 0) | .image":                    "now",
		"def f: now; if f > 0 then .spec.replicas else empty end":                        "now",
		".spec.template.spec.containers[] | select(localtime[0] > 2026) | .image":        "localtime",
		`.spec.template.spec.containers[] | select(0 | strflocaltime("%Y") == "2027")`:   "strflocaltime",
		`if $ENV.STAGE == "prod" then .spec.replicas else empty end`:                     "$ENV",
		`if env.STAGE == "prod" then .spec.replicas else empty end`:                      "env",
		".spec.now":               "",
		`.metadata.labels["now"]`: "",
		`.spec.template.spec.containers[] | select(.name == "now") | .image`:                      "",
		`.metadata.annotations | with_entries(select(.key | ltrimstr("x") | test("^now"))) | .[]`: "",
		`.spec.template.spec.containers[] | select(0 | todate | startswith("1970")) | .image`:     "",
	} {
		objs, err := load.Bytes("app.yml", []byte(app(expr)))
		if err != nil {
			t.Fatal(err)
		}
		_, err = argocd.Read(objs, nil)
		switch {
		case builtin == "" && err != nil:
			t.Errorf("%s: %v, want it read", expr, err)
		case builtin != "" && (err == nil || !strings.Contains(err.Error(), "app.yml: document 1 (line 1): spec.ignoreDifferences[0].jqPathExpressions[0]") || !strings.Contains(err.Error(), "calls "+builtin+",")):
			t.Errorf("%s: %v, want an error naming app.yml, its line, the entry and %s", expr, err, builtin)
		}
	}
}
