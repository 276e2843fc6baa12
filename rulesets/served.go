package rulesets

import (
	"embed"
	"fmt"
	"path"
	"sort"

	"sigs.k8s.io/yaml"
)

// Served is what kube-apiserver of one Kubernetes version serves with its default API resource
// config: the kinds of each group/version its discovery lists, which are the only ones kapp's
// deploy can create or update (kapp v0.66.0 resources/resource_types.go: a kind at a version
// discovery does not list is an unknown type, and the update fails). Never hand-written:
// hack/served reads each file from that version's own server.
type Served struct {
	Version       string               `json:"version"` // the kube-apiserver read: v1.37.2
	GroupVersions []ServedGroupVersion `json:"groupVersions"`
}

// ServedGroupVersion is one group/version of Served and its kinds (subresources left out).
type ServedGroupVersion struct {
	GroupVersion string   `json:"groupVersion"` // v1 for the core group
	Kinds        []string `json:"kinds"`
}

//go:embed served/*.yaml
var servedFiles embed.FS

// ServedVersions reads what every Kubernetes version rebasegen has data for serves by default,
// by version.
func ServedVersions() ([]Served, error) {
	entries, err := servedFiles.ReadDir("served")
	if err != nil {
		return nil, err
	}
	var out []Served
	for _, e := range entries {
		name := path.Join("served", e.Name())
		data, _ := servedFiles.ReadFile(name)
		var s Served
		if err := yaml.UnmarshalStrict(data, &s); err != nil {
			return nil, fmt.Errorf("rulesets/%s: %w", name, err)
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	return out, nil
}
