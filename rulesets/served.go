package rulesets

import (
	"embed"
	"fmt"
	"path"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/version"
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

// Removed is an API version of Kubernetes' own kinds that a Kubernetes release stopped serving
// (rulesets/removed/apiversions.yaml, from the Deprecated API Migration Guide): no kube-apiserver of that
// release or later serves the kinds at it.
type Removed struct {
	RemovedIn  string   `json:"removedIn"`  // the release that stopped serving it: v1.26
	APIVersion string   `json:"apiVersion"` // autoscaling/v2beta2
	Kinds      []string `json:"kinds"`
	Source     string   `json:"source"` // the guide's section saying so
}

//go:embed removed/apiversions.yaml
var removedFile []byte

// RemovedAPIVersions reads rulesets/removed/apiversions.yaml, each entry checked: a release, an apiVersion
// with a group (the core group's v1 was never removed), kinds and a source.
func RemovedAPIVersions() ([]Removed, error) {
	var doc struct {
		Removed []Removed `json:"removed"`
	}
	if err := yaml.UnmarshalStrict(removedFile, &doc); err != nil {
		return nil, fmt.Errorf("rulesets/removed/apiversions.yaml: %w", err)
	}
	for i, r := range doc.Removed {
		_, err := version.ParseSemantic(r.RemovedIn + ".0")
		if err != nil || !strings.Contains(r.APIVersion, "/") || len(r.Kinds) == 0 || r.Source == "" {
			return nil, fmt.Errorf("rulesets/removed/apiversions.yaml: removed[%d]: want removedIn vMAJOR.MINOR, an apiVersion GROUP/VERSION, kinds and a source: %+v", i, r)
		}
	}
	return doc.Removed, nil
}
