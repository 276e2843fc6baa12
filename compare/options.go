package compare

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// WriteMode is how the caller writes the desired object.
type WriteMode int

const (
	// Apply is server-side apply (PATCH application/apply-patch+yaml) under a field manager.
	Apply WriteMode = iota + 1
	// Update is an update (PUT) of the whole desired object.
	Update
)

// Option configures a Comparer.
type Option func(*config) error

type config struct {
	mode           WriteMode
	fieldManager   string
	crds           []load.Doc
	ignorePaths    []string
	ignoreManagers map[string]bool
	minor          int
}

// WithApply says the caller writes with server-side apply under fieldManager (the
// FieldManager of its ApplyOptions / PatchOptions).
func WithApply(fieldManager string) Option {
	return func(c *config) error {
		if fieldManager == "" {
			return errors.New("WithApply: the field manager is empty")
		}
		c.mode, c.fieldManager = Apply, fieldManager
		return nil
	}
}

// WithUpdate says the caller writes with an update (PUT) of the desired object as it is.
func WithUpdate() Option {
	return func(c *config) error {
		c.mode, c.fieldManager = Update, ""
		return nil
	}
}

// WithCRDs gives the CustomResourceDefinitions of the custom resources compared, whose
// structural schema defaults the server applies (apiextensions.k8s.io/v1 objects, typed or
// unstructured).
func WithCRDs(crds ...runtime.Object) Option {
	return func(c *config) error {
		for i, o := range crds {
			u, err := toUnstructured(o)
			if err != nil {
				return fmt.Errorf("WithCRDs: CRD %d: %w", i+1, err)
			}
			if u.GetKind() != "CustomResourceDefinition" || !strings.HasPrefix(u.GetAPIVersion(), "apiextensions.k8s.io/") {
				return fmt.Errorf("WithCRDs: CRD %d is a %s %s, not a CustomResourceDefinition", i+1, u.GetAPIVersion(), u.GetKind())
			}
			d, err := load.NewDoc(load.Object{Unstructured: u, Source: load.Source{File: "WithCRDs", Doc: i + 1}})
			if err != nil {
				return err
			}
			c.crds = append(c.crds, d)
		}
		return nil
	}
}

// WithIgnorePaths leaves fields out of the comparison: a path as Field.Path writes it ignores
// that field and everything below it. List items are addressed by their merge keys
// (spec.template.spec.containers[name=sidecar]) or, in lists without keys, by index
// (spec.tolerations[0]); map keys that are not plain words are quoted
// (metadata.annotations["example.com/checksum"]).
func WithIgnorePaths(paths ...string) Option {
	return func(c *config) error {
		for _, p := range paths {
			p = strings.TrimPrefix(strings.TrimSpace(p), ".")
			if p == "" {
				return errors.New("WithIgnorePaths: an empty path")
			}
			c.ignorePaths = append(c.ignorePaths, p)
		}
		return nil
	}
}

// WithIgnoreManagers leaves out the fields the named managers own (as managedFields names
// them): their values are no reason to write.
func WithIgnoreManagers(managers ...string) Option {
	return func(c *config) error {
		if c.ignoreManagers == nil {
			c.ignoreManagers = map[string]bool{}
		}
		for _, m := range managers {
			c.ignoreManagers[m] = true
		}
		return nil
	}
}

// WithKubernetesMinor states the minor version of the cluster's API server (37 for v1.37).
// Defaults are those of the Kubernetes code this package links (KubernetesMinor): New refuses
// another minor rather than judge with defaults the cluster may not have.
func WithKubernetesMinor(minor int) Option {
	return func(c *config) error {
		c.minor = minor
		return nil
	}
}

// KubernetesMinor is the minor version of the Kubernetes whose defaulting code judges.
func KubernetesMinor() int {
	parts := strings.Split(strings.TrimPrefix(kappconv.Kubernetes, "v"), ".")
	if len(parts) < 2 {
		return 0
	}
	m, _ := strconv.Atoi(parts[1])
	return m
}
