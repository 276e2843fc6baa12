package verdict

import (
	"fmt"

	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// Ownership is a paired live object kapp's deploy refuses to take: it carries kapp's app label
// with another value than the app's. kapp deploy lists the app's objects by its label, finds this
// one by its identity (--existing-non-labeled-resources-check, on by default and never turned off
// by kapp-controller) and fails its ownership check before it applies anything
// (resources/labeled_resources.go checkResourceOwnership): not one change of the deploy is
// applied, whatever the rules.
type Ownership struct {
	Resource pair.Identity
	Label    string // the live object's kapp.k14s.io/app value
	// App is the app's value as the paired live objects tell it: the one most of them carry (a
	// capture lists the app's objects by it); "" when none carries a value.
	App string
	// Tied: as many paired objects carry another value as App: which one is the app's cannot be
	// told, and whichever it is, the deploy fails on the objects carrying the other.
	Tied bool
}

// Evidence says why kapp's deploy fails, naming both values.
func (o Ownership) Evidence() string {
	failure := fmt.Sprintf("kapp's deploy finds it by its name, not among the app's objects (listed by that label), and fails its ownership check before applying anything (\"Ownership errors: Resource ... is already associated with a different label '%s=%s'\")", kappconv.AppLabel, o.Label)
	fix := "; another kapp app owns the object, or its label was changed: take it out of this app's manifests, or remove the label from the live object for kapp to take it over"
	switch {
	case o.App == "":
		return fmt.Sprintf("the live object is labelled %s with an empty value, which no kapp app's is: %s%s", kappconv.AppLabel, failure, fix)
	case o.Tied:
		return fmt.Sprintf("the live object is labelled %s=%s, as many other paired objects %s=%s: whichever of the two is the app's, kapp's deploy finds the objects carrying the other by their names, not among the app's objects, and fails its ownership check on them before applying anything (\"Ownership errors: Resource ... is already associated with a different label\")%s",
			kappconv.AppLabel, o.Label, kappconv.AppLabel, o.App, fix)
	}
	return fmt.Sprintf("the live object is labelled %s=%s, the app's other paired objects %s=%s: %s%s", kappconv.AppLabel, o.Label, kappconv.AppLabel, o.App, failure, fix)
}

// OwnershipOf lists the paired live objects kapp's ownership check refuses, in the pairs' order:
// those labelled kapp.k14s.io/app (an empty value too: kapp checks that the label is present)
// with another value than the app's, unless the manifest marks the object
// kapp.k14s.io/exists or kapp.k14s.io/noop, which the check skips (resourcesForOwnershipCheck).
func OwnershipOf(set *pair.Set) ([]Ownership, error) {
	labels := make([]*string, len(set.Pairs))
	count := map[string]int{}
	app, best := "", 0
	for i, p := range set.Pairs {
		v, found, err := p.Live.Field("metadata", "labels", kappconv.AppLabel)
		if err != nil {
			return nil, err
		}
		if !found {
			continue
		}
		s, _ := v.(string)
		labels[i] = &s
		if s == "" {
			continue
		}
		count[s]++
	}
	for _, l := range labels { // ties: the value of the first pair carrying one of them
		if l != nil && count[*l] > best {
			app, best = *l, count[*l]
		}
	}
	tied := false
	for v, n := range count {
		tied = tied || v != app && n == best
	}
	var out []Ownership
	for i, p := range set.Pairs {
		if labels[i] == nil || *labels[i] == app && app != "" {
			continue
		}
		skipped := false
		for _, ann := range []string{kappconv.ExistsAnnotation, kappconv.NoopAnnotation} {
			_, found, err := p.Desired.Field("metadata", "annotations", ann)
			if err != nil {
				return nil, err
			}
			skipped = skipped || found
		}
		if !skipped {
			out = append(out, Ownership{Resource: p.ID, Label: *labels[i], App: app, Tied: tied})
		}
	}
	return out, nil
}
