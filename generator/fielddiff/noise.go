package fielddiff

import (
	"strings"

	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// Noise reasons: differences that are never findings, only counted.
const (
	NoiseStatus = "status"          // status is not part of the desired state
	NoiseServer = "server-metadata" // stamped on every object by the API server
	NoiseKapp   = "kapp-metadata"   // kapp's own labels and annotations
)

// kubectl's last-applied annotation is not noise: kapp drops it when it takes an object over,
// a change classify reports as adoption (rulesets/adoption.yaml).

var serverMetadata = map[string]bool{
	"uid": true, "resourceVersion": true, "generation": true, "creationTimestamp": true,
	"managedFields": true, "selfLink": true,
}

// noise says why a path is not a finding, or "" when it is one.
func noise(p Path) string {
	f := func(i int) string {
		if i < len(p) && p[i].FieldName != nil {
			return *p[i].FieldName
		}
		return ""
	}
	for _, pe := range p {
		// kapp labels resources, selectors and pod templates with its own keys
		if pe.FieldName != nil && strings.HasPrefix(*pe.FieldName, kappconv.Prefix) {
			return NoiseKapp
		}
	}
	switch {
	case f(0) == "status":
		return NoiseStatus
	case f(0) != "metadata":
		return ""
	case serverMetadata[f(1)] && len(p) >= 2:
		return NoiseServer
	}
	return ""
}
