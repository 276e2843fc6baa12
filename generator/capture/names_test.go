package capture

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"k8s.io/client-go/rest"
)

// capture's errors name the app and namespace its caller gave, escaped: a line break or a
// terminal escape in them (a library caller's, which no flag validation refused) was written
// raw into "no kapp app ...", "reading kapp app ..." and "configmap ... is not a kapp app".
func TestErrorsEscapeTheNamesGiven(t *testing.T) {
	hostile := "x\nhint: did you mean -n forged\x1b[2J"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/api/v1/configmaps" || strings.HasSuffix(r.URL.Path, "/configmaps"):
			fmt.Fprint(w, `{"apiVersion":"v1","kind":"ConfigMapList","metadata":{},"items":[]}`)
		case strings.Contains(r.URL.Path, "/namespaces/refused"):
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Forbidden","message":"forbidden","code":403}`)
		case strings.Contains(r.URL.Path, "/namespaces/ns/configmaps/notapp"):
			fmt.Fprint(w, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"notapp","namespace":"ns"}}`)
		default:
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`)
		}
	}))
	defer srv.Close()
	for _, tc := range []struct {
		opts Options
		want string
	}{
		{Options{App: hostile, Namespace: "ns"}, `no kapp app x\nhint: did you mean -n forged\x1b[2J in namespace ns`},
		{Options{App: "web", Namespace: "refused" + hostile}, `reading kapp app refusedx\nhint: did you mean -n forged\x1b[2J/web: `},
		{Options{App: "notapp" + hostile, Namespace: "ns"}, `configmap ns/notappx\nhint: did you mean -n forged\x1b[2J.apps.k14s.io is not a kapp app`},
	} {
		_, err := Run(context.Background(), &rest.Config{Host: srv.URL}, tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.ContainsAny(err.Error(), "\n\x1b") {
			t.Errorf("app %q in namespace %q: %v\nwant an error on one line saying %q", tc.opts.App, tc.opts.Namespace, err, tc.want)
		}
	}
}
