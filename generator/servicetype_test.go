package generator_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	api "k8s.io/kubernetes/pkg/apis/core"
	corevalidation "k8s.io/kubernetes/pkg/apis/core/validation"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// A pull request making the captured headless Service (clusterIP: None) a NodePort or
// LoadBalancer one: the API server's validation of kapp's update refuses clusterIP None for
// those types, so kapp's deploy fails; check called it a pending change kapp applies, exit 0
// (newcomer11 N11-5). A valid change of the same Service (a port added) stays a pending change.
func TestHeadlessServiceGivenNodePortTypeFailsTheGate(t *testing.T) {
	live := fixtureServiceDB(t)
	for _, tc := range []struct {
		typ   string
		port  bool // add a port instead of changing the type
		fails bool
	}{{typ: "NodePort", fails: true}, {typ: "LoadBalancer", fails: true}, {port: true}} {
		name := tc.typ
		if tc.port {
			name = "port added"
		}
		t.Run(name, func(t *testing.T) {
			// the oracle: the API server's validation called directly on the update built by hand
			// (the live Service with the new type, defaulted as the server defaults a request)
			var v1 corev1.Service
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(live.Object, &v1); err != nil {
				t.Fatal(err)
			}
			nw := v1.DeepCopy()
			if tc.port {
				nw.Spec.Ports = append(nw.Spec.Ports, corev1.ServicePort{Name: "metrics", Port: 9187})
			} else {
				nw.Spec.Type = corev1.ServiceType(tc.typ)
			}
			legacyscheme.Scheme.Default(nw)
			var o, n api.Service
			if err := legacyscheme.Scheme.Convert(&v1, &o, nil); err != nil {
				t.Fatal(err)
			}
			if err := legacyscheme.Scheme.Convert(nw, &n, nil); err != nil {
				t.Fatal(err)
			}
			if errs := corevalidation.ValidateServiceUpdate(&n, &o); (len(errs) > 0) != tc.fails {
				t.Fatalf("oracle: ValidateServiceUpdate refuses the update: %v, want %v (%v)", len(errs) > 0, tc.fails, errs)
			}
			in := fixtureEdited(t, "hpa-statefulset", "Service", func(u *unstructured.Unstructured) {
				if tc.port {
					ports, _, _ := unstructured.NestedSlice(u.Object, "spec", "ports")
					_ = unstructured.SetNestedSlice(u.Object, append(ports, map[string]any{"name": "metrics", "port": int64(9187)}), "spec", "ports")
					return
				}
				_ = unstructured.SetNestedField(u.Object, tc.typ, "spec", "type")
			})
			ch, err := generator.Check(in, nil)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, f := range ch.Findings(verdict.Gate{}) {
				// no rules: the fields the server defaults are residual ghost diffs, not judged here
				if f.Resource.Kind != "Service" || f.Kind == verdict.KindResidual {
					continue
				}
				found = true
				refused := f.Kind == verdict.KindImmutable && f.Fails && strings.Contains(f.Evidence, "ValidateServiceUpdate") && strings.Contains(f.Evidence, "spec.clusterIPs[0]") && strings.Contains(f.Evidence, "may not be set to 'None'")
				if tc.fails && !refused || !tc.fails && (f.Fails || f.Kind != verdict.KindPending) {
					t.Errorf("check: want refused %v, got %s %s (fails %v): %s", tc.fails, f.Kind, f.Path, f.Fails, f.Evidence)
				}
			}
			if !found {
				t.Error("check: nothing about the Service")
			}
		})
	}
}

// fixtureServiceDB is the live headless Service of the hpa-statefulset fixture.
func fixtureServiceDB(t *testing.T) *unstructured.Unstructured {
	t.Helper()
	objs, err := load.Paths([]string{"../fixtures/hpa-statefulset/live.yaml"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		if o.GetKind() == "Service" {
			if ip, _, _ := unstructured.NestedString(o.Object, "spec", "clusterIP"); ip != "None" {
				t.Fatalf("the fixture's Service is not headless (clusterIP %q)", ip)
			}
			return o.Unstructured
		}
	}
	t.Fatal("no Service in the fixture")
	return nil
}

// The LoadBalancer Service (externalTrafficPolicy Local, a healthCheckNodePort) made ClusterIP in
// Git: kapp's built-in rule copies the live healthCheckNodePort into its update, and the server
// wipes it and the traffic policy before validating (its strategy's dropTypeDependentFields): a
// valid update, a pending change, not one the deploy fails on.
func TestLoadBalancerMadeClusterIPIsPending(t *testing.T) {
	in := fixtureEdited(t, "services", "Service", func(u *unstructured.Unstructured) {
		if u.GetName() == "web-lb" {
			_ = unstructured.SetNestedField(u.Object, "ClusterIP", "spec", "type")
		}
	})
	ch, err := generator.Check(in, nil)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range ch.Findings(verdict.Gate{}) {
		if f.Resource.Name == "web-lb" && f.Path == "spec.type" {
			found = true
			if f.Kind != verdict.KindPending || f.Fails {
				t.Errorf("check: want a pending change, got %s (fails %v): %s", f.Kind, f.Fails, f.Evidence)
			}
		}
	}
	if !found {
		t.Error("check: nothing about spec.type of web-lb")
	}
}
