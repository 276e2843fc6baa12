package verdict

// Matchers fed by the live object: a rule whose resourceMatchers read a field an earlier rule
// copies from the live object acts or not as the live object holds that field when kapp deploys,
// which the capture need not show.

import (
	"maps"
	"regexp"
	"slices"
	"sync"

	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/synth"
	"github.com/rebasegen/rebasegen/internal/kappmatch"
)

// liveWrite is where a rule copies from the live object into the object kapp rebases (kapp's
// path), but for what a later built-in remove emptied below it (except): kapp's built-in rules
// copy the whole of metadata from the live object, then replace its labels and annotations
// with the manifest's.
type liveWrite struct {
	path   ctlres.Path
	except []ctlres.Path
}

// gates lists the places of the live object that decide whether a rule in force matches desired
// (kapp's paths): kapp matches each rule on the resource as the earlier rules rebased it
// (diff/rebased_resource.go), so a matcher reading a field (kappmatch.Matcher.Reads) that an
// earlier rule may fill from the live object (kapp's built-in rules first, then the rules in
// force, in kapp's order) matches or not as the live object holds that field when kapp deploys:
// a copy of kubectl's restartedAt annotation arms a copy of the image gated on a non-empty pod
// template annotations map once someone restarts the Deployment, after the capture. Each gate is
// the longer of the read and the copied path (the copy fills the read field there). Rules decided
// by the resource's identities (ids, matchedAs) read nothing.
func gates(rules []Rule, desired *unstructured.Unstructured, ids []kappmatch.Identity) []ctlres.Path {
	writes, anyWrite := builtinWrites(desired)
	var out []ctlres.Path
	for _, rule := range rules {
		if rule.index < 0 {
			continue // not a rebase rule: kapp applies it outside the rebase
		}
		matches, decided := decidedAs(rule.matcher, ids)
		if decided && !matches {
			continue
		}
		read := func() {
			if !decided {
				for _, q := range rule.matcher.Reads() {
					out = append(out, gated(q, writes, anyWrite)...)
				}
			}
		}
		switch {
		case rule.ytt != nil && rule.hint != nil: // a generated ytt rule copies its hint's values
			read()
			for _, p := range rule.hint {
				writes = append(writes, liveWrite{path: kappPath(p)})
			}
		case rule.ytt != nil:
			read()
			anyWrite = true
		case rule.restores:
			// kapp makes a mod of each path, matched in turn after the previous one copied
			// (config.go AsMods)
			for _, p := range rule.paths {
				read()
				writes = append(writes, liveWrite{path: p})
			}
		default:
			read()
		}
	}
	return out
}

// gated lists where the live object decides a matcher's read of q, given the copies from the
// live object before it (anyWrite: a ytt rule, which may copy anything).
func gated(q ctlres.Path, writes []liveWrite, anyWrite bool) []ctlres.Path {
	if anyWrite {
		return []ctlres.Path{q}
	}
	var out []ctlres.Path
	for _, w := range writes {
		if !overlap(q, w.path) || slices.ContainsFunc(w.except, func(e ctlres.Path) bool { return keysPrefix(e, q) }) {
			continue
		}
		if len(w.path) > len(q) {
			out = append(out, w.path)
		} else {
			out = append(out, q)
		}
	}
	return out
}

// builtinWrites is where kapp's built-in rebase rules (config/default.go) copy from the live
// object into desired's resource. Their one matcher beyond identity (secretgen's
// hasAnnotationMatcher) reads annotations the built-in rules already replaced with the
// manifest's: it is decided on desired. anyWrite where the built-in rules cannot be read.
func builtinWrites(desired *unstructured.Unstructured) (writes []liveWrite, anyWrite bool) {
	rules, ok := builtinRules()
	if !ok {
		return nil, true
	}
	id := kappmatch.IdentityOf(desired)
	for _, r := range rules {
		matches, decided := r.matcher.ByIdentityOf(id)
		if !r.ok || decided && !matches || !decided && !r.matcher.MatchesObject(desired) {
			continue
		}
		switch {
		case r.ytt: // the ServiceAccount rule: it keeps the live object's token secrets
			for _, f := range []string{"secrets", "imagePullSecrets"} {
				writes = append(writes, liveWrite{path: ctlres.NewPathFromStrings([]string{f})})
			}
		case r.copies:
			for _, p := range r.paths {
				writes = append(writes, liveWrite{path: p})
			}
		case r.removes && decided:
			for _, p := range r.paths {
				writes = emptied(writes, p)
			}
		}
	}
	return writes, false
}

// builtinRule is one of kapp's built-in rebase rules as builtinWrites reads it.
type builtinRule struct {
	matcher kappmatch.Matcher
	ok      bool // kappmatch.New's: the matcher can be asked
	ytt     bool
	copies  bool // a copy from the live object
	removes bool
	paths   []ctlres.Path
}

// builtinRules is kapp's built-in rebase rules with their matchers, built once: every resource
// of every check asks them, and building a matcher costs more than asking it.
var builtinRules = sync.OnceValues(func() ([]builtinRule, bool) {
	rules, err := kappmatch.BuiltinRebaseRules()
	if err != nil {
		return nil, false
	}
	out := make([]builtinRule, len(rules))
	for i, r := range rules {
		out[i] = builtinRule{ytt: r.Ytt != nil, paths: rulePathsOf(r), removes: r.Type == "remove",
			copies: r.Type == "copy" && slices.Contains(r.Sources, ctlres.FieldCopyModSourceExisting)}
		out[i].matcher, out[i].ok = kappmatch.New(r.ResourceMatchers)
	}
	return out, true
})

// emptied is writes once a remove at p ran: a copy below p is gone, one above p keeps p empty.
func emptied(writes []liveWrite, p ctlres.Path) []liveWrite {
	if !slices.ContainsFunc(p, func(pp *ctlres.PathPart) bool { return pp.MapKey == nil }) {
		writes = slices.DeleteFunc(writes, func(w liveWrite) bool { return keysPrefix(p, w.path) })
		for i, w := range writes {
			if keysPrefix(w.path, p) {
				writes[i].except = append(slices.Clip(w.except), p)
			}
		}
	}
	return writes
}

// overlap reports whether kapp paths a and b may lead to the same field or one below the other.
func overlap(a, b ctlres.Path) bool {
	for i := range min(len(a), len(b)) {
		x, y := a[i], b[i]
		switch {
		case x.MapKey != nil && y.MapKey != nil:
			if *x.MapKey != *y.MapKey {
				return false
			}
		case (x.MapKey != nil || x.Regex != nil) && (y.MapKey != nil || y.Regex != nil):
		case x.ArrayIndex != nil && y.ArrayIndex != nil:
			if x.ArrayIndex.Index != nil && y.ArrayIndex.Index != nil && *x.ArrayIndex.Index != *y.ArrayIndex.Index {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// keysPrefix reports whether p, map keys only, is a prefix of q.
func keysPrefix(p, q ctlres.Path) bool {
	if len(p) > len(q) {
		return false
	}
	for i := range p {
		if p[i].MapKey == nil || q[i].MapKey == nil || *p[i].MapKey != *q[i].MapKey {
			return false
		}
	}
	return true
}

// kappPath is p as a kapp path, every list item any item.
func kappPath(p fielddiff.Path) ctlres.Path {
	var out ctlres.Path
	for _, pe := range p {
		if pe.FieldName != nil {
			out = append(out, ctlres.NewPathPartFromString(*pe.FieldName))
		} else {
			out = append(out, ctlres.NewPathPartFromIndexAll())
		}
	}
	return out
}

// gatedLives returns the live object as it may be when kapp deploys, at the gates: holding a
// value at each (gained: the manifest's value there, else a string, where the live object holds
// none), and holding none (lacked). Empty where the live object cannot differ there.
func gatedLives(gs []ctlres.Path, desired, live map[string]any) (gained, lacked []change) {
	seen := map[string]bool{}
	for _, g := range gs {
		for _, p := range instances(g, desired, live) {
			if k := p.String(); seen[k] {
				continue
			} else {
				seen[k] = true
			}
			if v, ok := p.Get(live); ok && !synth.IsEmptyValue(v) {
				continue
			}
			v, ok := p.Get(desired)
			if !ok || synth.IsEmptyValue(v) {
				v = "rebasegen-gained"
			}
			gained = append(gained, change{path: p, value: v})
		}
		for _, p := range resolved(live, g) {
			lacked = append(lacked, change{path: p, remove: true})
		}
	}
	return gained, lacked
}

// instances lists where kapp's path kp may lead in the live object, by index: its own lists'
// items, else the manifest's, else one item; a regex key among the keys either holds.
func instances(kp ctlres.Path, desired, live any) []fielddiff.Path {
	var out []fielddiff.Path
	var walk func(d, l any, parts ctlres.Path, at fielddiff.Path)
	walk = func(d, l any, parts ctlres.Path, at fielddiff.Path) {
		if len(parts) == 0 {
			out = append(out, at)
			return
		}
		part, rest := parts[0], parts[1:]
		dm, _ := d.(map[string]any)
		lm, _ := l.(map[string]any)
		switch {
		case part.MapKey != nil:
			walk(dm[*part.MapKey], lm[*part.MapKey], rest, with(at, fieldpath.PathElement{FieldName: part.MapKey}))
		case part.Regex != nil && part.Regex.Regex != nil:
			re, err := regexp.Compile(*part.Regex.Regex)
			if err != nil {
				return
			}
			keys := map[string]bool{}
			for k := range maps.Keys(dm) {
				keys[k] = re.MatchString(k)
			}
			for k := range maps.Keys(lm) {
				keys[k] = re.MatchString(k)
			}
			maps.DeleteFunc(keys, func(_ string, match bool) bool { return !match })
			for _, k := range slices.Sorted(maps.Keys(keys)) {
				walk(dm[k], lm[k], rest, with(at, fieldpath.PathElement{FieldName: &k}))
			}
		case part.ArrayIndex != nil:
			dl, _ := d.([]any)
			ll, isList := l.([]any)
			n := len(ll)
			if !isList {
				n = max(len(dl), 1)
			}
			for i := range n {
				if part.ArrayIndex.Index != nil && *part.ArrayIndex.Index != i {
					continue
				}
				var di, li any
				if i < len(dl) {
					di = dl[i]
				}
				if i < len(ll) {
					li = ll[i]
				}
				walk(di, li, rest, with(at, fieldpath.PathElement{Index: &i}))
			}
		}
	}
	walk(desired, live, kp, nil)
	return out
}

// setAt sets v at p (by index) in node, making the maps and list items on the way; it returns
// node, or what replaced it.
func setAt(node any, p fielddiff.Path, v any) any {
	if len(p) == 0 {
		return v
	}
	switch pe := p[0]; {
	case pe.FieldName != nil:
		m, _ := node.(map[string]any)
		if m == nil {
			m = map[string]any{}
		}
		m[*pe.FieldName] = setAt(m[*pe.FieldName], p[1:], v)
		return m
	case pe.Index != nil:
		l, _ := node.([]any)
		for len(l) <= *pe.Index {
			l = append(l, nil)
		}
		l[*pe.Index] = setAt(l[*pe.Index], p[1:], v)
		return l
	}
	return node
}
