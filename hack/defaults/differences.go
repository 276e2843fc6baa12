package main

// Where a version's defaults differ from the reference's: the rulesets/defaults data.

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/rebasegen/rebasegen/rulesets"
)

var index = regexp.MustCompile(`\[[0-9]+\]`)

// differences are the fields whose default in this version differs from the reference's, on the
// objects both know, by kind and path (list items as [*]).
func differences(ref Reference, version string, mine []Defaults) rulesets.VersionDefaults {
	vd := rulesets.VersionDefaults{Version: version, Reference: ref.Version}
	byName := map[string]Defaults{}
	for _, d := range mine {
		byName[d.Name] = d
	}
	type key struct{ apiVersion, kind, path, value, ref string }
	at := map[key]int{}
	for _, r := range ref.Objects {
		m, ok := byName[r.Name]
		if !ok || m.APIVersion != r.APIVersion || m.Kind != r.Kind {
			continue // a kind this version does not know
		}
		gv, _ := schema.ParseGroupVersion(r.APIVersion)
		st, hasStrategy := createStrategies[gv.WithKind(r.Kind).GroupKind()]
		for _, stage := range []struct {
			ref, mine map[string]any
			strategy  bool
			source    string
		}{
			{r.Fields, m.Fields, false, fmt.Sprintf("defaulting and conversion of %s %s (k8s.io/kubernetes %s, pkg/apis/%s)", r.APIVersion, r.Kind, version, pkgOf(r.APIVersion))},
			{r.Prepared, m.Prepared, true, fmt.Sprintf("PrepareForCreate of %s (k8s.io/kubernetes %s %s)", st.resource, version, st.pkg)},
		} {
			if stage.strategy && !hasStrategy {
				continue
			}
			for _, p := range unionKeys(stage.ref, stage.mine) {
				rv, rok := stage.ref[p]
				mv, mok := stage.mine[p]
				if rok == mok && reflect.DeepEqual(rv, mv) {
					continue
				}
				d := rulesets.DefaultDifference{APIVersion: r.APIVersion, Kind: r.Kind, Path: index.ReplaceAllString(p, "[*]"), Strategy: stage.strategy,
					Value: mv, NotDefaulted: !mok, ReferenceValue: rv, ReferenceNotDefaulted: !rok, Source: stage.source}
				k := key{d.APIVersion, d.Kind, d.Path, fmt.Sprint(stage.strategy, mok, jsonText(mv)), fmt.Sprint(rok, jsonText(rv))}
				if i, ok := at[k]; ok {
					if !slices.Contains(vd.Differences[i].Objects, r.Name) {
						vd.Differences[i].Objects = append(vd.Differences[i].Objects, r.Name)
					}
					continue
				}
				d.Objects = []string{r.Name}
				at[k] = len(vd.Differences)
				vd.Differences = append(vd.Differences, d)
			}
		}
	}
	sort.SliceStable(vd.Differences, func(i, j int) bool {
		a, b := vd.Differences[i], vd.Differences[j]
		return fmt.Sprint(a.APIVersion, " ", a.Kind, " ", a.Path, " ", a.Strategy) < fmt.Sprint(b.APIVersion, " ", b.Kind, " ", b.Path, " ", b.Strategy)
	})
	return vd
}

// unionKeys are the keys of a and b, sorted.
func unionKeys(a, b map[string]any) []string {
	var out []string
	for p := range a {
		out = append(out, p)
	}
	for p := range b {
		if _, ok := a[p]; !ok {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

func jsonText(v any) string {
	bs, _ := json.Marshal(v)
	return string(bs)
}

// pkgOf is the package of k8s.io/kubernetes holding a group version's defaulters.
func pkgOf(apiVersion string) string {
	gv, _ := schema.ParseGroupVersion(apiVersion)
	g := strings.TrimSuffix(strings.TrimSuffix(gv.Group, ".k8s.io"), ".authorization")
	if g == "" {
		g = "core"
	}
	return g + "/" + gv.Version
}
