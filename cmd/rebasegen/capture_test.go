package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// fakeAPIServer serves a kapp app "web" in namespace ns holding one ConfigMap; lists answers
// GET /api/v1/configmaps and version the GET /version body. It returns a kubeconfig for it.
func fakeAPIServer(t *testing.T, version string, lists func(w http.ResponseWriter, r *http.Request)) string {
	srv := httptest.NewServer(fakeAPI(version, lists))
	t.Cleanup(srv.Close)
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte("apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "+srv.URL+"}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\nusers: [{name: u, user: {}}]\ncurrent-context: c\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return kubeconfig
}

// fakeAPI is fakeAPIServer's API server.
func fakeAPI(version string, lists func(w http.ResponseWriter, r *http.Request)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/version":
			fmt.Fprint(w, version)
		case "/api":
			fmt.Fprint(w, `{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0","serverAddress":"x"}]}`)
		case "/apis":
			fmt.Fprint(w, `{"kind":"APIGroupList","apiVersion":"v1","groups":[]}`)
		case "/api/v1":
			fmt.Fprint(w, `{"kind":"APIResourceList","groupVersion":"v1","resources":[{"name":"configmaps","namespaced":true,"kind":"ConfigMap","verbs":["get","list"]}]}`)
		case "/api/v1/namespaces/ns/configmaps/web":
			fmt.Fprint(w, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"web","namespace":"ns"},"data":{"spec":"{\"labelKey\":\"kapp.k14s.io/app\",\"labelValue\":\"1\"}"}}`)
		case "/api/v1/configmaps":
			lists(w, r)
		default:
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`)
		}
	})
}

const oneConfigMap = `{"apiVersion":"v1","kind":"ConfigMapList","metadata":{},"items":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"ns","labels":{"kapp.k14s.io/app":"1"},"annotations":{"kapp.k14s.io/original":"{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c\",\"namespace\":\"ns\"}}"}}}]}`

// TestCaptureRequestTimeout (probe5 finding 6): an API server that accepts a list request and
// never answers held capture for ever. Each request is bounded (--request-timeout), the kind is
// warned about naming the request, and what was captured is written.
func TestCaptureRequestTimeout(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	kubeconfig := fakeAPIServer(t, versionJSON("v1.37.2"), func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	out := filepath.Join(t.TempDir(), "captured")
	start := time.Now()
	r := rebasegen(t, "capture", "--app", "web", "-n", "ns", "--kubeconfig", kubeconfig, "--output-directory", out, "--request-timeout", "1s")
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("capture took %s with --request-timeout 1s and --retries 3: a request that timed out was retried or not bounded", took)
	}
	if want := "warning: /v1, Resource=configmaps not captured: no answer within --request-timeout 1s: Get \""; r.code != 0 || !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "/api/v1/configmaps?") {
		t.Errorf("capture of a server that never answers the list: exit %d, stderr:\n%s\nwant %q naming the request", r.code, r.stderr, want)
	}
	if _, err := os.Stat(filepath.Join(out, "live.yaml")); err != nil {
		t.Errorf("what was captured is not written: %v", err)
	}
}

// TestCaptureReplacesTheDirectory (probe5 finding 7): a capture into the directory of an earlier
// one left its crds.yaml when the new capture had no custom resources, and --live DIR read those
// CRDs; and a GET /version body that is no version (a proxy's login page) was written as
// server-version.json. The capture files are replaced as a set, and a failed capture leaves the
// directory as it was.
func TestCaptureReplacesTheDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "captured")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	earlier := map[string]string{
		"crds.yaml":           capturedFile("---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: olds.x.io}\n"),
		"live.yaml":           capturedFile("---\nold: live\n"),
		"desired.yaml":        capturedFile("---\nold: desired\n"),
		"server-version.json": versionJSON("v1.35.0"),
	}
	for name, data := range earlier {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ok := func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, oneConfigMap) }
	r := rebasegen(t, "capture", "--app", "web", "-n", "ns", "--kubeconfig", fakeAPIServer(t, "<html><body>Please log in</body></html>", ok), "--output-directory", dir)
	if r.code != 1 || !strings.Contains(r.stderr, "GET /version") {
		t.Errorf("capture of a server whose GET /version is a login page: exit %d, stderr:\n%s\nwant an error naming GET /version", r.code, r.stderr)
	}
	for name, data := range earlier {
		if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(got) != data {
			t.Errorf("after a failed capture, %s is %q (%v), want the earlier capture's %q", name, got, err, data)
		}
	}
	r = rebasegen(t, "capture", "--app", "web", "-n", "ns", "--kubeconfig", fakeAPIServer(t, versionJSON("v1.37.2"), ok), "--output-directory", dir)
	if r.code != 0 {
		t.Fatalf("capture: exit %d\n%s", r.code, r.stderr)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{"desired.yaml", "live.yaml", "server-version.json"}; !slices.Equal(names, want) {
		t.Errorf("after capturing an app without custom resources into an earlier capture's directory: %v, want %v (the earlier crds.yaml removed)", names, want)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "live.yaml")); !strings.Contains(string(got), "name: c") {
		t.Errorf("live.yaml not replaced:\n%s", got)
	}
}

// TestCaptureRedactsEveryShape (probe5 finding 8): through the command, the finding's Secrets:
// kapp's original holding a List, data a string, stringData a string, a value a map.
func TestCaptureRedactsEveryShape(t *testing.T) {
	const marker = "SUPERSECRET"
	origs := []string{
		`{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"s\"},\"stringData\":{\"pw\":\"` + marker + `1\"}}]}`,
		`{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"s\"},\"data\":\"` + marker + `3\"}`,
		`{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"s\"},\"data\":{\"pw\":{\"nested\":\"` + marker + `4\"}},\"stringData\":\"` + marker + `5\"}`,
	}
	var items []string
	for i, o := range origs {
		items = append(items, fmt.Sprintf(`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s%d","namespace":"ns","labels":{"kapp.k14s.io/app":"1"},"annotations":{"kapp.k14s.io/original":"%s","kubectl.kubernetes.io/last-applied-configuration":"%s"}},"data":{"pw":"eA=="}}`, i, o, o))
	}
	// the Secrets are served as the fake's one kind's list: capture redacts by each item's kind
	kubeconfig := fakeAPIServer(t, versionJSON("v1.37.2"), func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"apiVersion":"v1","kind":"List","metadata":{},"items":[`+strings.Join(items, ",")+`]}`)
	})
	dir := filepath.Join(t.TempDir(), "captured")
	if r := rebasegen(t, "capture", "--app", "web", "-n", "ns", "--kubeconfig", kubeconfig, "--output-directory", dir); r.code != 0 {
		t.Fatalf("capture: exit %d\n%s", r.code, r.stderr)
	}
	live, _ := os.ReadFile(filepath.Join(dir, "live.yaml"))
	if strings.Count(string(live), "kind: Secret") != 3 {
		t.Fatalf("the three Secrets were not captured: the test tests nothing:\n%s", live)
	}
	for _, name := range []string{"live.yaml", "desired.yaml"} {
		if got, _ := os.ReadFile(filepath.Join(dir, name)); strings.Contains(string(got), marker) {
			t.Errorf("%s holds a Secret value:\n%s", name, got)
		}
	}
}

// TestCaptureArgoCDFlags (newcomer3 finding 2): an Argo CD user's `capture --app NAME` said only
// "no kapp app"; it names --argocd-app, which is given alone, with a tracking method Argo CD has.
func TestCaptureArgoCDFlags(t *testing.T) {
	kubeconfig := fakeAPIServer(t, versionJSON("v1.37.2"), func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, oneConfigMap) })
	dir := filepath.Join(t.TempDir(), "captured")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--app", "shop", "-n", "ns"}, "rebasegen: no kapp app shop in namespace ns (the objects of an Argo CD Application: --argocd-app)"},
		{[]string{"--app", "shop", "--argocd-app", "shop"}, "rebasegen: --argocd-app shop: give it alone"},
		{[]string{"--argocd-app", "shop", "--argocd-tracking", "labels"}, "rebasegen: --argocd-tracking labels: not a tracking method of Argo CD's: want one of [annotation label annotation+label]"},
		{[]string{"--argocd-app", "shop", "-n", "apps"}, "rebasegen: --argocd-app shop and --namespace: an Application's objects are found in every namespace; one outside Argo CD's namespace is named NAMESPACE_NAME"},
		{[]string{"--argocd-app", "argocd_a,b"}, "rebasegen: --argocd-app \"argocd_a,b\": not a valid Kubernetes name"},
	} {
		r := rebasegen(t, append([]string{"capture", "--kubeconfig", kubeconfig, "--output-directory", dir}, tc.args...)...)
		if r.code != exitError || !strings.HasPrefix(r.stderr, tc.want) {
			t.Errorf("capture %v: exit %d, stderr:\n%s\nwant %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
}

// capturedFile is body as capture writes it, for app ns/web, by this rebasegen: its header, whose
// digest is the SHA-256 of the file without the digest line.
func capturedFile(body string) string {
	first := "#! Captured by rebasegen " + version + " from app ns/web. Do not edit: capture again to refresh it.\n"
	sum := sha256.Sum256([]byte(first + body))
	return first + "#! Digest: sha256:" + hex.EncodeToString(sum[:]) + "\n" + body
}

// TestCaptureKeepsFilesItDidNotWrite (issue 23, probe16 P16-9): a directory holding a hand-written
// desired.yaml (the name manifests go by) passed as "an earlier capture", its files known by name
// only, and capture replaced them. Capture's files carry its header and a digest: a file without
// the header (hand-written, or a capture's from before the header), edited since, or a
// server-version.json that is no GET /version body is refused by name, the directory left as it
// was; the files capture wrote are replaced, and read back by explain as before.
func TestCaptureKeepsFilesItDidNotWrite(t *testing.T) {
	kubeconfig := fakeAPIServer(t, versionJSON("v1.37.2"), func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, oneConfigMap) })
	capture := func(dir string) result {
		return rebasegen(t, "capture", "--app", "web", "-n", "ns", "--kubeconfig", kubeconfig, "--output-directory", dir)
	}
	dir := filepath.Join(t.TempDir(), "captured")
	if r := capture(dir); r.code != 0 {
		t.Fatalf("capture into a new directory: exit %d\n%s", r.code, r.stderr)
	}
	live, err := os.ReadFile(filepath.Join(dir, "live.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	_, body, _ := strings.Cut(string(live), "\n---\n")
	if want := capturedFile("---\n" + body); string(live) != want || !strings.Contains(body, "name: c") {
		t.Fatalf("live.yaml is not the objects under capture's header and their digest:\n%s\nwant\n%s", live, want)
	}
	if r := rebasegen(t, "explain", "-l", dir, "-d", filepath.Join(dir, "desired.yaml")); r.code != 0 {
		t.Errorf("explain of the capture: exit %d\n%s", r.code, r.stderr)
	}
	if r := capture(dir); r.code != 0 {
		t.Errorf("capture into the directory of an earlier capture: exit %d\n%s", r.code, r.stderr)
	}

	for _, tc := range []struct{ file, data, want string }{
		{"desired.yaml", "# my hand-written manifests\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n", "desired.yaml has no capture header"},
		{"live.yaml", "---\nkind: ConfigMap\n", "live.yaml has no capture header"}, // a capture before the header (fixtures/)
		{"live.yaml", string(live) + "# my note\n", "live.yaml was edited since capture wrote it"},
		{"server-version.json", "my notes\n", "server-version.json is not the API server's GET /version body"},
	} {
		before, err := os.ReadFile(filepath.Join(dir, tc.file))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, tc.file), []byte(tc.data), 0o644); err != nil {
			t.Fatal(err)
		}
		r := capture(dir)
		checkRejected(t, "capture over "+tc.file+" ("+tc.want+")", r, "--output-directory "+dir+": ", tc.want)
		if got, _ := os.ReadFile(filepath.Join(dir, tc.file)); string(got) != tc.data {
			t.Errorf("a refused capture changed %s:\n%s", tc.file, got)
		}
		if err := os.WriteFile(filepath.Join(dir, tc.file), before, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCaptureNamesTheAppMeant (newcomer16 N16-5): an app not found in the namespace given (a
// wrong or missing -n, a misspelt --app) said only "no kapp app"; the apps the cluster holds,
// listed as kapp lists them (ConfigMaps labelled kapp.k14s.io/is-app, one request), give the -n
// or --app meant.
func TestCaptureNamesTheAppMeant(t *testing.T) {
	app := func(ns, name string) string {
		return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `","namespace":"` + ns + `","labels":{"kapp.k14s.io/is-app":""}}}`
	}
	var selectors []string
	kubeconfig := fakeAPIServer(t, versionJSON("v1.37.2"), func(w http.ResponseWriter, r *http.Request) {
		selectors = append(selectors, r.URL.Query().Get("labelSelector"))
		fmt.Fprint(w, `{"apiVersion":"v1","kind":"ConfigMapList","metadata":{},"items":[`+
			// the last, not an app's, is left out as the server would
			strings.Join([]string{app("shop", "shop"), app("shop", "web.apps.k14s.io"), app("other", "shopping"), `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"ns"}}`}, ",")+`]}`)
	})
	dir := filepath.Join(t.TempDir(), "captured")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--app", "shop"}, "no kapp app shop in namespace default (the objects of an Argo CD Application: --argocd-app)\nhint: did you mean -n shop? kapp app shop is in namespace shop\n"},
		{[]string{"--app", "shp", "-n", "shop"}, "no kapp app shp in namespace shop (the objects of an Argo CD Application: --argocd-app)\nhint: did you mean --app shop? (the kapp apps in namespace shop: shop, web)\n"},
		{[]string{"--app", "shoping", "-n", "shop"}, "\nhint: did you mean --app shopping -n other? kapp app shopping is in namespace other\n"},
		{[]string{"--app", "billing", "-n", "shop"}, "\nhint: the kapp apps in namespace shop: shop, web\n"},
		{[]string{"--app", "billing", "-n", "ns"}, "\nhint: namespace ns holds no kapp app; the namespaces holding kapp apps: other, shop\n"},
	} {
		r := rebasegen(t, append([]string{"capture", "--kubeconfig", kubeconfig, "--output-directory", dir}, tc.args...)...)
		if r.code != exitError || !strings.HasSuffix(r.stderr, tc.want) {
			t.Errorf("capture %v: exit %d, stderr:\n%s\nwant it to end %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
	if len(selectors) == 0 || selectors[0] != "kapp.k14s.io/is-app=" {
		t.Errorf("the apps were listed with label selectors %q, not kapp's kapp.k14s.io/is-app=", selectors)
	}
}
