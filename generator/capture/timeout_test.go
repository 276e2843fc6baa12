package capture

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// TestAggregatedAPIThatHangs (probe5 finding 6): an aggregated API whose backend never answers
// (metrics-server down) held capture for ever, in discovery or in its list. Each request is
// bounded by RequestTimeout; the group is a failure naming it, and the app's other kinds are
// captured.
func TestAggregatedAPIThatHangs(t *testing.T) {
	for _, hangs := range []string{"/apis/metrics.k8s.io/v1beta1", "/apis/metrics.k8s.io/v1beta1/pods"} {
		t.Run(hangs, func(t *testing.T) {
			release := make(chan struct{})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == hangs {
					select {
					case <-release:
					case <-r.Context().Done():
					}
					return
				}
				w.Header().Set("Content-Type", "application/json")
				switch r.URL.Path {
				case "/version":
					fmt.Fprint(w, `{"major":"1","minor":"37","gitVersion":"v1.37.2"}`)
				case "/api":
					fmt.Fprint(w, `{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0","serverAddress":"x"}]}`)
				case "/apis":
					fmt.Fprint(w, `{"kind":"APIGroupList","apiVersion":"v1","groups":[{"name":"metrics.k8s.io","versions":[{"groupVersion":"metrics.k8s.io/v1beta1","version":"v1beta1"}],"preferredVersion":{"groupVersion":"metrics.k8s.io/v1beta1","version":"v1beta1"}}]}`)
				case "/api/v1":
					fmt.Fprint(w, `{"kind":"APIResourceList","groupVersion":"v1","resources":[{"name":"configmaps","namespaced":true,"kind":"ConfigMap","verbs":["get","list"]}]}`)
				case "/apis/metrics.k8s.io/v1beta1":
					fmt.Fprint(w, `{"kind":"APIResourceList","groupVersion":"metrics.k8s.io/v1beta1","resources":[{"name":"pods","namespaced":true,"kind":"PodMetrics","verbs":["get","list"]}]}`)
				case "/api/v1/namespaces/ns/configmaps/web":
					fmt.Fprint(w, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"web","namespace":"ns"},"data":{"spec":"{\"labelKey\":\"kapp.k14s.io/app\",\"labelValue\":\"1\"}"}}`)
				case "/api/v1/configmaps":
					fmt.Fprint(w, `{"apiVersion":"v1","kind":"ConfigMapList","metadata":{},"items":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"ns","labels":{"kapp.k14s.io/app":"1"}}}]}`)
				default:
					w.WriteHeader(http.StatusNotFound)
					fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`)
				}
			}))
			defer srv.Close()
			defer close(release)
			done := make(chan struct{})
			var res *Result
			var err error
			go func() {
				defer close(done)
				res, err = Run(context.Background(), &rest.Config{Host: srv.URL}, Options{App: "web", Namespace: "ns", Retries: 3, RequestTimeout: time.Second})
			}()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				t.Fatalf("capture still waits on %s after 30s with RequestTimeout 1s", hangs)
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Live) != 1 || len(res.Failures) != 1 || !strings.Contains(res.Failures[0].Resource, "metrics.k8s.io") ||
				!strings.Contains(res.Failures[0].Err.Error(), "no answer within --request-timeout 1s") {
				t.Errorf("captured %d objects, failures %v; want the ConfigMap and one failure: metrics.k8s.io not answering within the timeout", len(res.Live), res.Failures)
			}
			t.Logf("%s: %v", res.Failures[0].Resource, res.Failures[0].Err)
		})
	}
}
