package rulesets

import (
	"embed"
	"fmt"
	"path"
	"sort"

	"sigs.k8s.io/yaml"
)

// VersionDefaults is how the API server's defaulting of one Kubernetes minor version differs
// from that of the version rebasegen links. Never hand-written: hack/defaults generates each file
// with that version's own code (a Go binary links one k8s.io/kubernetes).
type VersionDefaults struct {
	Version     string              `json:"version"`   // the k8s.io/kubernetes whose code made Value: v1.35.0
	Reference   string              `json:"reference"` // the linked k8s.io/kubernetes the entries differ from
	Differences []DefaultDifference `json:"differences"`
}

// DefaultDifference is a field whose default differs between Version and Reference on an
// object of the corpus: in what the scheme's defaulting (and conversion) sets, or, Strategy, in
// what the kind's create strategy's PrepareForCreate then sets or changes.
type DefaultDifference struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Path       string `json:"path"` // [*]: any list item
	Strategy   bool   `json:"strategy,omitempty"`
	// Value is Version's default; none when NotDefaulted.
	Value        any  `json:"value,omitempty"`
	NotDefaulted bool `json:"notDefaulted,omitempty"`
	// ReferenceValue is the linked version's default; none when ReferenceNotDefaulted.
	ReferenceValue        any    `json:"referenceValue,omitempty"`
	ReferenceNotDefaulted bool   `json:"referenceNotDefaulted,omitempty"`
	Source                string `json:"source"`
	// Objects are the corpus objects it was seen on (hack/defaults: a file's document, or a
	// filled object of the kind).
	Objects []string `json:"objects"`
}

//go:embed defaults/*.yaml
var versionFiles embed.FS

// Versions reads the defaults of every Kubernetes minor version rebasegen has data for, by
// version.
func Versions() ([]VersionDefaults, error) {
	entries, err := versionFiles.ReadDir("defaults")
	if err != nil {
		return nil, err
	}
	var out []VersionDefaults
	for _, e := range entries {
		name := path.Join("defaults", e.Name())
		data, _ := versionFiles.ReadFile(name)
		var v VersionDefaults
		if err := yaml.UnmarshalStrict(data, &v); err != nil {
			return nil, fmt.Errorf("rulesets/%s: %w", name, err)
		}
		for _, d := range v.Differences {
			if _, err := PathPattern(d.Path); err != nil {
				return nil, fmt.Errorf("rulesets/%s: path %q: %w", name, d.Path, err)
			}
		}
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	return out, nil
}
