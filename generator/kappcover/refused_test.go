package kappcover

import (
	"errors"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator/load"
)

// TestRefusedNamesTheConfig: among several Configs, the one kapp refuses (an error reading it) or
// cannot build rules from (a panic in kapp) is named by its document, whichever of the two it is
// and wherever it is among the others.
func TestRefusedNamesTheConfig(t *testing.T) {
	const head = "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\n"
	const good = head + "rebaseRules:\n- {type: copy, sources: [existing], path: [spec, replicas], resourceMatchers: [{apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}}]}\n"
	for _, tc := range []struct{ name, bad, want string }{
		{"refused", head + "minimumRequiredVersion: 99.0.0\n", "Validating config: kapp version"},
		{"panics", head + "rebaseRules:\n- {type: copy, sources: [existing], path: [spec, replicas], resourceMatchers: [{apiVersionKindMatch: {apiVersion: apps/v1, kind: Deployment}}]}\n", "Unknown resource matcher specified"},
	} {
		for _, badFirst := range []bool{false, true} {
			docs := []string{good, tc.bad}
			if badFirst {
				docs = []string{tc.bad, good}
			}
			var configs []load.Object
			for i, d := range docs {
				name := map[bool]string{true: "bad.yml", false: "good.yml"}[d == tc.bad]
				parsed, err := load.ParseDocs(name, []byte(d))
				if err != nil {
					t.Fatal(err)
				}
				o, err := parsed[0].Object()
				if err != nil {
					t.Fatal(err, i)
				}
				configs = append(configs, o)
			}
			_, err := New(configs, false)
			var refused *Refused
			if !errors.As(err, &refused) || refused.Source.String() != "bad.yml: document 1 (line 1)" || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s (bad first: %v): %v, want the Config of bad.yml named and %q", tc.name, badFirst, err, tc.want)
			}
		}
	}
}
