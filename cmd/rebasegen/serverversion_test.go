package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCaptureWritesServerVersion (issue 26): capture records the server's GET /version body as
// server-version.json beside live.yaml, byte for byte what the server said.
func TestCaptureWritesServerVersion(t *testing.T) {
	body := `{"major":"1","minor":"31","gitVersion":"v1.31.7","gitCommit":"abc","platform":"linux/amd64"}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/version":
			fmt.Fprint(w, body)
		case "/api":
			fmt.Fprint(w, `{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0","serverAddress":"x"}]}`)
		case "/apis":
			fmt.Fprint(w, `{"kind":"APIGroupList","apiVersion":"v1","groups":[]}`)
		case "/api/v1":
			fmt.Fprint(w, `{"kind":"APIResourceList","groupVersion":"v1","resources":[{"name":"configmaps","namespaced":true,"kind":"ConfigMap","verbs":["get","list"]}]}`)
		case "/api/v1/namespaces/ns/configmaps/web", "/api/v1/namespaces/ns/configmaps/web.app":
			fmt.Fprint(w, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"web","namespace":"ns"},"data":{"spec":"{\"labelKey\":\"kapp.k14s.io/app\",\"labelValue\":\"1\"}"}}`)
		case "/api/v1/configmaps":
			fmt.Fprint(w, `{"apiVersion":"v1","kind":"ConfigMapList","metadata":{},"items":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"ns","labels":{"kapp.k14s.io/app":"1"},"annotations":{"kapp.k14s.io/original":"{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c\",\"namespace\":\"ns\"}}"}}}]}`)
		default:
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`)
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte("apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "+srv.URL+"}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\nusers: [{name: u, user: {}}]\ncurrent-context: c\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "captured")
	if r := rebasegen(t, "capture", "--app", "web", "-n", "ns", "--kubeconfig", kubeconfig, "--output-directory", out); r.code != 0 {
		t.Fatalf("capture: exit %d\n%s", r.code, r.stderr)
	}
	got, err := os.ReadFile(filepath.Join(out, "server-version.json"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != body+"\n" {
		t.Errorf("server-version.json:\n%s\nwant the GET /version body:\n%s", got, body)
	}
	// the app of a PackageInstall NS/NAME is named in its namespace (it was -n's default)
	r := rebasegen(t, "capture", "--package-install", "ns/web", "--kubeconfig", kubeconfig, "--output-directory", filepath.Join(dir, "pi"))
	if want := "captured 1 object of app ns/web.app into "; r.code != 0 || !strings.Contains(r.stderr, want) {
		t.Errorf("capture --package-install ns/web: exit %d, stderr:\n%s\nwant %q", r.code, r.stderr, want)
	}
	// and explain reads it back: a minor without defaults data is named in a warning
	r = rebasegen(t, "explain", "-l", filepath.Join(out, "live.yaml"))
	if want := "the live objects come from Kubernetes v1.31.7 (" + filepath.Join(out, "server-version.json") + ")"; r.code != 0 || !strings.Contains(r.stderr, want) {
		t.Errorf("explain of the captured app: exit %d, stderr:\n%s\nwant %q", r.code, r.stderr, want)
	}
}

// withVersion copies a fixture's live.yaml into a directory of its own, with a server-version.json
// holding body (none when empty), and returns the live file's path.
func withVersion(t *testing.T, fixture, body string) string {
	t.Helper()
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join("..", "..", "fixtures", fixture, "live.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	live := filepath.Join(dir, "live.yaml")
	if err := os.WriteFile(live, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if body != "" {
		if err := os.WriteFile(filepath.Join(dir, "server-version.json"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return live
}

func versionJSON(v string) string { return `{"major":"1","gitVersion":"` + v + `"}` }

// TestServerVersionInput (issue 26): explain, generate, check and lint read server-version.json beside
// the live file, --server-version wins over it, two servers among the inputs are an error naming
// both files, a malformed value is an error naming the file and field, and a minor rebasegen has
// no defaults of is one warning naming the server's version and the one used: on stderr, and for
// check a finding in its output (TestCheckServerVersionInEveryFormat).
func TestServerVersionInput(t *testing.T) {
	desired := filepath.Join("..", "..", "fixtures", "hpa-replicas", "desired.yaml")
	old := withVersion(t, "hpa-replicas", versionJSON("v1.31.4"))
	oldFile := filepath.Join(filepath.Dir(old), "server-version.json")
	const warnPrefix = "warning: the live objects come from Kubernetes "
	for _, cmd := range []string{"explain", "generate", "check", "lint"} {
		args := []string{cmd, "-d", desired, "-l", old, "-n", "hpa-replicas"}
		if cmd == "check" || cmd == "lint" {
			args = append(args, "--rules", filepath.Join("..", "..", "fixtures", "lint", "hpa-replicas-all-deployments", "rules.yml"))
		}
		r := rebasegen(t, args...)
		want := warnPrefix + "v1.31.4 (" + oldFile + "), whose defaults rebasegen has no data for: judged with the defaults of k8s.io/kubernetes v1.37.2"
		got, other := r.stderr, r.stdout
		if cmd == "check" { // a finding of check's, in its output: once, not on stderr too
			want = strings.Replace(want, "warning: ", "warning: server version: ", 1)
			got, other = r.stdout, r.stderr
		}
		if r.code == exitError || strings.Count(got+other, "the live objects come from Kubernetes ") != 1 || !strings.Contains(got, want) {
			t.Errorf("%s with a v1.31.4 server-version.json: exit %d, stdout:\n%s\nstderr:\n%s\nwant once: %q", cmd, r.code, r.stdout, r.stderr, want)
		}
		if cmd != "explain" && cmd != "lint" {
			continue // the flag is read by the same code in explain, generate and check; lint wires its flags apart
		}
		r = rebasegen(t, append(args, "--server-version", "v1.37.2")...)
		if r.code == exitError || strings.Contains(r.stderr, warnPrefix) {
			t.Errorf("%s --server-version v1.37.2 beside a v1.31.4 file (the flag wins): exit %d, stderr:\n%s", cmd, r.code, r.stderr)
		}
		r = rebasegen(t, append(args, "--server-version", "v1.38.0")...)
		if want := warnPrefix + "v1.38.0 (--server-version)"; r.code == exitError || !strings.Contains(r.stderr, want) {
			t.Errorf("%s --server-version v1.38.0: exit %d, stderr:\n%s\nwant %q", cmd, r.code, r.stderr, want)
		}
	}
	same := withVersion(t, "hpa-replicas", versionJSON("v1.37.2"))
	if r := rebasegen(t, "explain", "-d", desired, "-l", same, "-n", "hpa-replicas"); r.code != 0 || strings.Contains(r.stderr, "warning") {
		t.Errorf("a v1.37.2 server-version.json: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	other := withVersion(t, "hpa-no-replicas", versionJSON("v1.35.0"))
	otherFile := filepath.Join(filepath.Dir(other), "server-version.json")
	r := rebasegen(t, "explain", "-l", old, "-l", other)
	if r.code != exitError || !strings.Contains(r.stderr, oldFile+" says v1.31.4") || !strings.Contains(r.stderr, otherFile+" says v1.35.0") {
		t.Errorf("two servers: exit %d, stderr:\n%s\nwant an error naming both files", r.code, r.stderr)
	}
	if r := rebasegen(t, "explain", "-l", old, "-l", other, "--server-version", "v1.37.2"); r.code != 0 {
		t.Errorf("two servers, --server-version given: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	for body, want := range map[string]string{
		"{not json":                      ": not the JSON of the API server's GET /version",
		`{"major":"1"}`:                  ": field gitVersion: missing",
		`{"gitVersion":"latest"}`:        `: field gitVersion: "latest" is not a Kubernetes version`,
		`{"gitVersion":1.35}`:            ": not the JSON of the API server's GET /version",
		`{"gitVersion":"v1.35.0"} extra`: ": not the JSON of the API server's GET /version",
	} {
		bad := withVersion(t, "hpa-replicas", body)
		file := filepath.Join(filepath.Dir(bad), "server-version.json")
		if r := rebasegen(t, "explain", "-l", bad); r.code != exitError || !strings.Contains(r.stderr, file+want) {
			t.Errorf("server-version.json %s: exit %d, stderr:\n%s\nwant %q", body, r.code, r.stderr, file+want)
		}
	}
	if r := rebasegen(t, "explain", "-l", same, "--server-version", "1.35"); r.code != exitError || !strings.HasPrefix(r.stderr, "rebasegen: --server-version 1.35: want a Kubernetes version such as v1.37.2") {
		t.Errorf("--server-version 1.35: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	// lint without objects judges none with the server's defaults, but refuses a malformed version all the same
	rules := filepath.Join("..", "..", "fixtures", "lint", "hpa-replicas-all-deployments", "rules.yml")
	if r := rebasegen(t, "lint", "--rules", rules, "--server-version", "1.35"); r.code != exitError || !strings.HasPrefix(r.stderr, "rebasegen: --server-version 1.35: want a Kubernetes version such as v1.37.2") {
		t.Errorf("lint --server-version 1.35: exit %d, stderr:\n%s", r.code, r.stderr)
	}
}

// TestServerVersionRecorded: generate records --server-version in its Regenerate line, and check
// finds the file it wrote current.
func TestServerVersionRecorded(t *testing.T) {
	fix := scenario(t, "hpa-replicas")
	out := filepath.Join(t.TempDir(), "rules.yml")
	if r := rebasegen(t, append([]string{"generate", "--server-version", "v1.37.2", "--output-file", out}, fix...)...); r.code != 0 {
		t.Fatalf("generate: exit %d\n%s", r.code, r.stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), " --server-version v1.37.2 ") {
		t.Errorf("the Regenerate line does not record --server-version:\n%s", data)
	}
	if r := rebasegen(t, append([]string{"check", "--server-version", "v1.37.2", "--rules", out}, fix...)...); r.code != 0 {
		t.Errorf("check of the file generate wrote: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestServerVersionJudgesDefaults (issue 26): a field whose default differs between the server's
// minor version and the linked one is judged with the server's. A CSIDriver as a v1.37.2 server
// stores it holds spec.preventPodSchedulingIfMissing: false, which v1.37's defaulting sets and
// v1.35's does not (rulesets/defaults/v1.35.yaml): defaulted from a v1.37.2 server (and when the
// version is unknown), not from a v1.35.0 one, where someone else added it or Git removed it
// (no kapp.k14s.io/original to tell: unknown). The other
// defaults are the same on both. The hpa-replicas fixture, captured on a v1.35.0 server, is
// classified alike under both versions: no Deployment default differs.
func TestServerVersionJudgesDefaults(t *testing.T) {
	classes := func(version string, args ...string) map[string]string { return explainClasses(t, version, args...) }
	csi := []string{"-d", filepath.Join("testdata", "csidriver", "desired.yaml"), "-l", filepath.Join("testdata", "csidriver", "live.yaml")}
	const field = "spec.preventPodSchedulingIfMissing"
	for version, want := range map[string]string{
		"":        "defaulted: defaulting and conversion of storage.k8s.io/v1 CSIDriver (k8s.io/kubernetes v1.37.2)",
		"v1.37.2": "defaulted: defaulting and conversion of storage.k8s.io/v1 CSIDriver (k8s.io/kubernetes v1.37.2)",
		"v1.37.0": "defaulted: defaulting and conversion of storage.k8s.io/v1 CSIDriver (k8s.io/kubernetes v1.37.2)",
		"v1.35.0": "unknown: ", // kapp is credited with it and there is no original: a removal made in Git cannot be told from admission (issue 23)
		"v1.35.4": "unknown: ",
	} {
		got := classes(version, csi...)
		if !strings.HasPrefix(got[field], want) {
			t.Errorf("--server-version %q: %s is %q, want %q", version, field, got[field], want)
		}
		if f := got["spec.fsGroupPolicy"]; !strings.HasPrefix(f, "defaulted: ") {
			t.Errorf("--server-version %q: spec.fsGroupPolicy is %q, want defaulted on every version", version, f)
		}
	}
	fix := scenario(t, "hpa-replicas")
	if a, b := classes("v1.35.0", fix...), classes("v1.37.2", fix...); !maps.Equal(a, b) {
		t.Errorf("hpa-replicas (a Deployment and an HPA) is classified otherwise on v1.35.0:\n%v\nthan on v1.37.2:\n%v", a, b)
	}
}

// TestCheckServerVersionInEveryFormat (issue 26): that the live objects come from a minor version
// rebasegen has no defaults data for is a warning in every format of check, naming both versions:
// a CI job reading check's JSON or GitHub annotations sees it too (it was on stderr alone).
func TestCheckServerVersionInEveryFormat(t *testing.T) {
	desired := filepath.Join("..", "..", "fixtures", "hpa-replicas", "desired.yaml")
	old := withVersion(t, "hpa-replicas", versionJSON("v1.31.4"))
	rules := filepath.Join("..", "..", "fixtures", "lint", "hpa-replicas-all-deployments", "rules.yml")
	const both = "Kubernetes v1.31.4 (%s), whose defaults rebasegen has no data for: judged with the defaults of k8s.io/kubernetes v1.37.2"
	want := fmt.Sprintf(both, filepath.Join(filepath.Dir(old), "server-version.json"))
	for _, of := range []string{"text", "json", "github"} {
		r := rebasegen(t, "check", "-d", desired, "-l", old, "-n", "hpa-replicas", "--rules", rules, "-o", of)
		if r.code == exitError {
			t.Fatalf("check -o %s: exit %d\n%s", of, r.code, r.stderr)
		}
		switch of {
		case "json":
			var j struct {
				ServerVersion []struct{ Resource, Evidence, Severity string }
			}
			if err := json.Unmarshal([]byte(r.stdout), &j); err != nil {
				t.Fatal(err)
			}
			if len(j.ServerVersion) != 1 || !strings.Contains(j.ServerVersion[0].Evidence, want) || j.ServerVersion[0].Severity != "warning" || j.ServerVersion[0].Resource != "" {
				t.Errorf("check -o json: serverVersion is %+v, want one warning naming %q", j.ServerVersion, want)
			}
		case "github":
			if !strings.Contains(r.stdout, "::warning::server version: the live objects come from "+want) {
				t.Errorf("check -o github: no ::warning:: naming %q:\n%s", want, r.stdout)
			}
		default:
			if !strings.Contains(r.stdout, "warning: server version: the live objects come from "+want) {
				t.Errorf("check: no warning naming %q:\n%s", want, r.stdout)
			}
		}
	}
	// a minor version with data (or the linked one) is no finding
	same := withVersion(t, "hpa-replicas", versionJSON("v1.37.2"))
	if r := rebasegen(t, "check", "-d", desired, "-l", same, "-n", "hpa-replicas", "--rules", rules, "-o", "json"); strings.Contains(r.stdout, "the live objects come from") || !strings.Contains(r.stdout, `"serverVersion": []`) {
		t.Errorf("check -o json on a v1.37.2 server: exit %d\n%s", r.code, r.stdout)
	}
}

// A --live directory holding the live objects and the server-version.json capture writes (the
// README: "in each --live directory") reads the version from it, and the file is no object.
func TestServerVersionInALiveDirectory(t *testing.T) {
	desired := filepath.Join("..", "..", "fixtures", "hpa-replicas", "desired.yaml")
	dir := filepath.Dir(withVersion(t, "hpa-replicas", versionJSON("v1.31.4")))
	r := rebasegen(t, "explain", "-d", desired, "-l", dir, "-n", "hpa-replicas")
	want := "warning: the live objects come from Kubernetes v1.31.4 (" + filepath.Join(dir, "server-version.json") + ")"
	if r.code != 0 || !strings.Contains(r.stderr, want) || !strings.Contains(r.stdout, "Summary: 2 resources") {
		t.Errorf("exit %d, want 0, the 2 resources and %q:\n%s%s", r.code, want, r.stdout, r.stderr)
	}
}

// explainClasses runs explain -o json judged as a server of version ("": none given) and returns
// each field's "class: evidence" by resource name and path.
func explainClasses(t *testing.T, version string, args ...string) map[string]string {
	t.Helper()
	if version != "" {
		args = append(args, "--server-version", version)
	}
	r := rebasegen(t, append([]string{"explain", "-o", "json"}, args...)...)
	if r.code != 0 || strings.Contains(r.stderr, "warning: the live objects come from") {
		t.Fatalf("explain %v: exit %d\n%s", args, r.code, r.stderr)
	}
	var rep struct {
		Resources []struct {
			Name   string
			Fields []struct{ Path, Class, Evidence string }
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, res := range rep.Resources {
		for _, f := range res.Fields {
			out[f.Path] = f.Class + ": " + f.Evidence
			out[res.Name+" "+f.Path] = f.Class + ": " + f.Evidence
		}
	}
	return out
}

// TestServerVersionJudgesStrategyDefaults (issue 26): what the create strategies' PrepareForCreate
// set is judged with the server's minor version too (rulesets/defaults: each version's real
// strategies). Pod-level requests from the Pod's limits are set by v1.37's Pod strategy and by
// v1.36's defaulting: defaulted on both, the evidence naming the code of each. Pod-level limits
// from the containers' limits where the Pod has requests alone are new in v1.37's strategy:
// defaulted from a v1.37.2 server, not from a v1.36.0 one (its defaulting and strategy set none).
// The live objects are what v1.37.2's code makes of desired.yaml (testdata/podlevel/live.yaml
// says how it was read); the Pods' values are none of the corpus's, so the data must apply to
// values it was not made from.
func TestServerVersionJudgesStrategyDefaults(t *testing.T) {
	args := []string{"-d", filepath.Join("testdata", "podlevel", "desired.yaml"), "-l", filepath.Join("testdata", "podlevel", "live.yaml")}
	const (
		strategy137 = "defaulted: set on create by PrepareForCreate of pods (k8s.io/kubernetes v1.37.2 pkg/registry/core/pod)"
		scheme136   = "defaulted: defaulting and conversion of v1 Pod (k8s.io/kubernetes v1.36.0, pkg/apis/core/v1), the API server's minor version (rulesets/defaults/v1.36.yaml)"
	)
	for _, tc := range []struct{ version, field, want string }{
		{"v1.37.2", "limits spec.resources.requests", strategy137},
		{"", "limits spec.resources.requests", strategy137},
		{"v1.36.0", "limits spec.resources.requests", scheme136},
		{"v1.37.2", "sum spec.resources.limits", strategy137},
		{"v1.36.0", "sum spec.resources.limits", "unknown: "},
	} {
		got := explainClasses(t, tc.version, args...)
		if !strings.HasPrefix(got[tc.field], tc.want) {
			t.Errorf("--server-version %q: %s is %q, want %q", tc.version, tc.field, got[tc.field], tc.want)
		}
	}
}
