// Package kappcover decides, with kapp's own rebase code, which differing fields of a pair kapp's
// rebase rules already restore: its built-in rules, or a package's own kapp Configs. classify
// takes it as a function (classify.Covers), so that classification links no kapp.
package kappcover

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	ctldiff "carvel.dev/kapp/pkg/kapp/diff"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/internal/kappconv"
	"github.com/rebasegen/rebasegen/internal/kappglobal"
	"github.com/rebasegen/rebasegen/internal/kappprep"
	"github.com/rebasegen/rebasegen/internal/parallel"
)

// Rebaser applies kapp's own rebase rules: which fields kapp would already take from the live
// object is decided by kapp's code, not by a copied list.
type Rebaser struct {
	prep    *kappprep.Preparer // kapp's built-in Config and configs: how kapp prepares a desired object
	mods    []ctlres.ResourceModWithMultiple
	reach   []reach       // reach[i] is mods[i]'s
	configs []load.Object // the configs the mods are made from, after kapp's built-in rules
}

// New uses kapp's built-in rules, plus configs when given (the package's own rules); with
// onlyConfigs the built-in rules are left out.
func New(configs []load.Object, onlyConfigs bool) (r Rebaser, err error) {
	defer func() {
		// kapp accepts a Config with an unknown rule type or an empty matcher and panics when it
		// builds the rules (RebaseMods)
		if p := recover(); p != nil {
			if err = refused(configs); err == nil {
				err = fmt.Errorf("kapp Config in %s: %w", sources(configs), kappconv.Readable(fmt.Errorf("%v", p)))
			}
		}
	}()
	kappglobal.Prepare()
	var rs []ctlres.Resource
	for _, c := range configs {
		rs = append(rs, ctlres.NewResourceUnstructured(*c.Unstructured, ctlres.ResourceType{}))
	}
	// kapp prepares the resources with its built-in Config's ownership and label scoping rules
	// whichever rebase rules are asked about
	_, prep, err := ctlconf.NewConfFromResourcesWithDefaults(rs)
	conf := prep
	if err == nil && onlyConfigs {
		_, conf, err = ctlconf.NewConfFromResources(rs)
	}
	if err != nil {
		if one := refused(configs); one != nil {
			return Rebaser{}, one
		}
		return Rebaser{}, fmt.Errorf("reading kapp Config: %w", kappconv.Readable(err))
	}
	mods := conf.RebaseMods()
	r = Rebaser{prep: kappprep.NewPreparer(prep), mods: mods, reach: make([]reach, len(mods)), configs: configs}
	for i, m := range mods {
		r.reach[i] = reachOf(m)
		mods[i] = kappglobal.RebaseMod(m) // Classify runs pairs in parallel; ytt must not (kapp's defaults include a ytt rule)
	}
	return r, nil
}

// Refused is kapp refusing one Config: its document and kapp's reason, which names no rule
// (lint, reading each rule alone, does).
type Refused struct {
	Source load.Source
	Err    error
}

func (e *Refused) Error() string {
	return fmt.Sprintf("%s: kapp refuses the Config: %v", e.Source, e.Err)
}
func (e *Refused) Unwrap() error { return e.Err }

// refused names the first of configs kapp refuses or panics on alone (for lint to name its rule);
// nil where kapp builds each one's rules.
func refused(configs []load.Object) error {
	for _, c := range configs {
		if err := alone(c); err != nil {
			return &Refused{Source: c.Source, Err: kappconv.Readable(err)}
		}
	}
	return nil
}

// alone is kapp's error, or its panic as an error, building c's rules alone.
func alone(c load.Object) (err error) {
	defer func() {
		if p := recover(); p != nil {
			// kapp's panic text ends with the Go value it could not use ("Unknown resource matcher
			// specified: config.ResourceMatcher{...}"), which tells a user nothing
			msg, value, _ := strings.Cut(fmt.Sprint(p), ": ")
			if !strings.Contains(value, "{") {
				msg = fmt.Sprint(p)
			}
			err = errors.New(msg)
		}
	}()
	_, conf, err := ctlconf.NewConfFromResources([]ctlres.Resource{ctlres.NewResourceUnstructured(*c.Unstructured, ctlres.ResourceType{})})
	if err == nil {
		conf.RebaseMods()
	}
	return err
}

func sources(objs []load.Object) string {
	var out []string
	for _, o := range objs {
		out = append(out, o.Source.String())
	}
	return strings.Join(out, "; ")
}

// Prepared is desired as kapp deploy prepares it before it diffs and rebases it (kappprep: its
// labels, with live's app label), with the configs' ownership and label scoping rules and
// additional labels besides kapp's built-in ones. It is a classify.Prepare.
func (r Rebaser) Prepared(desired, live *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	return r.prep.Object(desired, kappprep.AppLabel(live))
}

// PreparingAs is r preparing desired objects as o does: kapp prepares every resource with all the
// Configs it reads (their additional labels, ownership and label scoping rules) whichever rebase
// rules are asked about.
func (r Rebaser) PreparingAs(o Rebaser) Rebaser {
	r.prep = o.prep
	return r
}

// Covered reports for each path of ps whether kapp's rules already restore its live value; nil
// when none does. desired is the object kapp prepared (Prepared). It is a classify.Covers.
//
// Performance: kapp's copy rules copy both resources whole for every path they copy (several
// times over: resources/mod_field_copy.go), so this rebase was a fifth of classification's
// allocations at fleet scale, nearly all of it copying spec and status for rules of metadata.
// kapp is handed the resources with only the top-level fields its rules can read or write (see
// fields): what it does with those fields is exactly what it does with the whole resources, and
// it leaves every other field as the new resource has it.
func (r Rebaser) Covered(desired, live *unstructured.Unstructured, ps []fielddiff.Path) ([]bool, error) {
	if len(r.mods) == 0 || len(ps) == 0 {
		return nil, nil
	}
	fields, all, readsManaged := r.fields(desired)
	var rl *fielddiff.Lookup
	// kapp's built-in rules reaching none of the fields asked about (a Deployment's defaulted spec
	// fields) leave each as the new resource has it: no answer reads the rebased resource, and
	// those rules do not fail, so they are not run (a package's rules are, for their errors)
	if all || len(r.configs) > 0 || reachesAny(ps, fields) {
		newRes, existing := desired, live
		if !all {
			newRes, existing = only(desired, fields), only(live, fields)
			if !readsManaged && !asksManaged(ps) {
				// no answer depends on managedFields then, a live object's are often the largest
				// part of it, and kapp's copy rules copy both resources whole for every path they copy
				newRes, existing = fielddiff.WithoutManagedFields(newRes), fielddiff.WithoutManagedFields(existing)
			}
		}
		rebased, err := r.rebase(newRes, existing)
		if err != nil {
			if at := r.failing(desired, live); at != "" {
				return nil, fmt.Errorf("%s: %w", at, kappconv.Readable(err))
			}
			return nil, kappconv.Readable(err)
		}
		rl = fielddiff.NewLookup(rebased.Object)
	}
	dl, ll := fielddiff.NewLookup(desired.Object), fielddiff.NewLookup(live.Object)
	var out []bool
	for i, p := range ps {
		at := rl
		if !all && !reaches(p, fields) {
			at = dl // no rule reaches the field: kapp keeps the new resource's value
		}
		// raw values, as kapp's text diff compares them
		rv, rok := at.Get(p)
		lv, lok := ll.Get(p)
		if rok == lok && fielddiff.Equal(rv, lv) {
			if out == nil {
				out = make([]bool, len(ps))
			}
			out[i] = true
		}
	}
	return out, nil
}

// reaches reports whether p starts with one of fields (a field a rule may read or write).
func reaches(p fielddiff.Path, fields map[string]bool) bool {
	return len(p) > 0 && p[0].FieldName != nil && fields[*p[0].FieldName]
}

func reachesAny(ps []fielddiff.Path, fields map[string]bool) bool {
	return slices.ContainsFunc(ps, func(p fielddiff.Path) bool { return reaches(p, fields) })
}

// Rebased is the object kapp applies for desired, live as the existing object: desired as kapp
// prepares it (Prepared), with the rules applied.
func (r Rebaser) Rebased(desired, live *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	prepared, err := r.Prepared(desired, live)
	if err != nil || len(r.mods) == 0 {
		return prepared, err
	}
	return r.rebase(prepared, live)
}

// Rebase applies the rules to desired as kapp prepared it already (Rebased without preparing it).
func (r Rebaser) Rebase(prepared, live *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	return r.rebase(prepared, live)
}

// only returns u with the top-level fields named in fields alone (the values are u's, shared).
func only(u *unstructured.Unstructured, fields map[string]bool) *unstructured.Unstructured {
	m := make(map[string]any, len(fields))
	for f := range fields {
		if v, ok := u.Object[f]; ok {
			m[f] = v
		}
	}
	return &unstructured.Unstructured{Object: m}
}

func (r Rebaser) rebase(desired, live *unstructured.Unstructured) (res *unstructured.Unstructured, err error) {
	defer func() {
		if p := recover(); p != nil { // kapp panics on some invalid rules
			err = fmt.Errorf("kapp rebase rules failed: %w", kappconv.Readable(fmt.Errorf("%v", p)))
		}
	}()
	// Not copied: kapp rebases a copy of the new resource and never modifies its sources (its
	// copy rules copy them first, ytt rules marshal them); copying both objects here was a tenth
	// of the allocations of this rebase, which copies the objects whole once per rule path.
	existing := ctlres.NewResourceUnstructured(*live, ctlres.ResourceType{})
	newRes := ctlres.NewResourceUnstructured(*desired, ctlres.ResourceType{})
	rebased, err := ctldiff.NewRebasedResource(existing, newRes, r.mods).Resource()
	if err != nil {
		return nil, err
	}
	return &unstructured.Unstructured{Object: rebased.UnstructuredObject()}, nil
}

// failing names the rule of r.configs that fails on its own to rebase desired onto live (an error
// or a panic of kapp: an invalid regex, a negative list index), "" when none does: kapp's error
// names the resource only. The error path alone tries each rule.
func (r Rebaser) failing(desired, live *unstructured.Unstructured) string {
	for _, c := range r.configs {
		rules, ok := c.Object["rebaseRules"].([]any)
		if !load.IsKappConfig(c.GetAPIVersion(), c.GetKind()) || !ok {
			if one, err := New([]load.Object{c}, true); err == nil {
				if _, err := one.rebase(desired, live); err != nil {
					return c.Source.String()
				}
			}
			continue
		}
		for i, rule := range rules {
			u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": c.GetAPIVersion(), "kind": c.GetKind(), "rebaseRules": []any{rule}}}
			one, err := New([]load.Object{{Unstructured: u, Source: c.Source}}, true)
			if err != nil {
				return fmt.Sprintf("%s, rebaseRules[%d]", c.Source, i)
			}
			if _, err := one.rebase(desired, live); err != nil {
				return fmt.Sprintf("%s, rebaseRules[%d]", c.Source, i)
			}
		}
	}
	return ""
}

// CoveredBy returns, for each resource of rep, the paths of its uncovered ghost findings that the
// rules of configs (without kapp's built-in rules) restore, decided by kapp's rebase code as
// CoveredByPackageRules is (unknown findings too with includeUnknown). The verdict asks it about
// the rules in force, without classifying again.
func CoveredBy(rep *classify.Report, configs []load.Object, includeUnknown bool) ([]map[string]bool, error) {
	r, err := New(configs, true)
	if err != nil {
		return nil, err
	}
	out := make([]map[string]bool, len(rep.Resources))
	errs := make([]error, len(rep.Resources))
	parallel.Each(len(rep.Resources), func() func(int) {
		return func(i int) {
			res := rep.Resources[i]
			var ps []fielddiff.Path
			for _, f := range res.Findings {
				if f.Ruled(includeUnknown) && !f.Covered() && !f.KappView {
					ps = append(ps, f.Path)
				}
			}
			if len(ps) == 0 {
				return
			}
			desired, live, err := res.Objects()
			var covered []bool
			var prepared *unstructured.Unstructured
			if err == nil {
				prepared, err = r.Prepared(desired.Unstructured, live.Unstructured)
			}
			if err == nil {
				covered, err = r.Covered(prepared, live.Unstructured, ps)
			}
			for j, c := range covered {
				if c {
					if out[i] == nil {
						out[i] = map[string]bool{}
					}
					out[i][ps[j].String()] = true
				}
			}
			if err != nil {
				errs[i] = fmt.Errorf("%s: %w", res.ID, err)
			}
		}
	})
	for _, err := range errs {
		if err != nil {
			return nil, kappconv.Readable(err)
		}
	}
	return out, nil
}

// Covers returns what classify takes (the fields of classify.Options it fills) to prepare desired
// objects as kapp does (kapp's built-in Config, the package's own kapp Configs and rules, the
// Configs of rule files deployed with it), to rebase them as kapp's update does with the same
// rules and without the rule files, and to mark covered findings: kapp's built-in rebase rules,
// and the package's own kapp Configs (nil when there are none).
func Covers(configs, rules []load.Object) (classify.Options, error) {
	d, err := New(nil, false)
	if err != nil {
		return classify.Options{}, err
	}
	out := classify.Options{Prepare: d.Prepared, Rebase: d.Rebased, KappDefaults: d.Covered}
	own := d // kapp's built-in rebase rules and the package's own, without the rule files'
	if len(configs) > 0 {
		if own, err = New(configs, false); err != nil {
			return classify.Options{}, err
		}
		out.Rebase = own.Rebased
	}
	if len(rules) > 0 {
		all, err := New(slices.Concat(configs, rules), false)
		if err != nil {
			return classify.Options{}, err
		}
		out.Prepare, out.Rebase = all.Prepared, all.Rebased
		// prepared with every Config (the rule files' label rules too), rebased without the
		// rule files' rebase rules
		out.Unruled = func(desired, live *unstructured.Unstructured) (*unstructured.Unstructured, error) {
			prepared, err := all.Prepared(desired, live)
			if err != nil {
				return nil, err
			}
			return own.Rebase(prepared, live)
		}
	}
	if len(configs) == 0 {
		return out, nil
	}
	p, err := New(configs, true)
	if err != nil {
		return classify.Options{}, err
	}
	if len(rules) == 0 {
		// the package's Configs hold no rebase rules of kapp's: theirs on top of kapp's built-in ones
		out.Prepare = p.Prepared
	}
	out.PackageRules = p.Covered
	return out, nil
}
