//go:build unix

package main

import (
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestCaptureKubeconfigReadsBounded (issue 23, probe16 P16-8): --kubeconfig /dev/zero was refused,
// but $KUBECONFIG=/dev/zero, and a kubeconfig naming /dev/zero as its certificate-authority
// (client-certificate, client-key, tokenFile), were read by client-go without limit: Go's fatal
// "out of memory". Every path of $KUBECONFIG and every file the kubeconfig names is read as any
// input is: devices refused by name, a named pipe refused rather than waited on, relative paths
// the kubeconfig's directory's. A kubeconfig naming its CA and token by relative paths still
// captures over TLS with the token, and $KUBECONFIG's files merge as client-go merges them (the
// first file to name a cluster wins).
func TestCaptureKubeconfigReadsBounded(t *testing.T) {
	t.Setenv("KUBERNETES_SERVICE_HOST", "") // not in-cluster
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o600); err != nil {
		t.Fatal(err)
	}
	kubeconfig := func(name, cluster, user string) string {
		return write(name, "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {"+cluster+"}}]\n"+
			"users: [{name: u, user: {"+user+"}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n")
	}
	cert := write("cert.pem", "not read as a certificate: the key is refused first\n")
	out := filepath.Join(dir, "out")
	for _, tc := range []struct {
		env, flag  string // $KUBECONFIG, --kubeconfig
		name, want string
	}{
		{env: "/dev/zero", name: "$KUBECONFIG /dev/zero: reading /dev/zero", want: "a device, not a regular file"},
		{env: filepath.Join(dir, "missing") + ":/dev/zero", name: "reading /dev/zero", want: "a device, not a regular file"},
		{flag: kubeconfig("ca.yaml", "server: https://127.0.0.1:1, certificate-authority: /dev/zero", "token: x"),
			name: "the certificate-authority of " + filepath.Join(dir, "ca.yaml") + ": reading /dev/zero", want: "a device, not a regular file"},
		{env: kubeconfig("key.yaml", "server: https://127.0.0.1:1", "client-certificate: "+cert+", client-key: /dev/zero"),
			name: "the client-key of " + filepath.Join(dir, "key.yaml") + ": reading /dev/zero", want: "a device, not a regular file"},
		{flag: kubeconfig("token.yaml", "server: https://127.0.0.1:1", "tokenFile: pipe"),
			name: "the tokenFile of " + filepath.Join(dir, "token.yaml") + ": reading " + filepath.Join(dir, "pipe"), want: "a named pipe"},
	} {
		t.Setenv("KUBECONFIG", tc.env)
		args := []string{"capture", "--app", "web", "-n", "ns", "--output-directory", out}
		if tc.flag != "" {
			args = append(args, "--kubeconfig", tc.flag)
		}
		checkRejected(t, fmt.Sprintf("KUBECONFIG=%s %s", tc.env, strings.Join(args, " ")), rebasegenWithin(t, args...), tc.name, tc.want)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a refused kubeconfig left %s", out)
	}

	const token = "s3cret-t0ken"
	api := fakeAPI(versionJSON("v1.37.2"), func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, oneConfigMap) })
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		api.ServeHTTP(w, r)
	}))
	defer srv.Close()
	write("ca.crt", string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})))
	write("token", token+"\n")
	good := kubeconfig("good.yaml", "server: "+srv.URL+", certificate-authority: ca.crt", "tokenFile: token")
	other := kubeconfig("other.yaml", "server: https://127.0.0.1:1, certificate-authority: /dev/zero", "token: x") // not read: good.yaml's cluster c wins
	t.Setenv("KUBECONFIG", good+":"+other)
	t.Chdir(t.TempDir()) // relative to the kubeconfig, not to the working directory
	if r := rebasegenWithin(t, "capture", "--app", "web", "-n", "ns", "--output-directory", out); r.code != 0 {
		t.Errorf("capture with a kubeconfig naming its CA and token file by relative paths: exit %d\n%s", r.code, r.stderr)
	} else if live, _ := os.ReadFile(filepath.Join(out, "live.yaml")); !strings.Contains(string(live), "name: c") {
		t.Errorf("nothing captured:\n%s", live)
	}
}
