package words

import "testing"

func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0 rules", 1: "1 rule", 2: "2 rules", 11: "11 rules"} {
		if got := Count(n, "rule"); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestA (newcomer16 N16-5): lint said "no desired object is a Ingress".
func TestA(t *testing.T) {
	for noun, want := range map[string]string{
		"Ingress": "an Ingress", "Deployment": "a Deployment", "HPA": "an HPA", "HorizontalPodAutoscaler": "a HorizontalPodAutoscaler",
		"APIService": "an APIService", "CSIDriver": "a CSIDriver", "EndpointSlice": "an EndpointSlice", "ObjectStore": "an ObjectStore",
		"v1": "a v1", "apps/v1": "an apps/v1", "int": "an int", "list": "a list", "NetworkPolicy": "a NetworkPolicy",
	} {
		if got := A(noun); got != want {
			t.Errorf("A(%q) = %q, want %q", noun, got, want)
		}
	}
}
