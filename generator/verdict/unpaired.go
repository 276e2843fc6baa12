package verdict

import (
	"fmt"
	"slices"
	"strings"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/internal/kappconv"
	"github.com/rebasegen/rebasegen/internal/kappmatch"
	"github.com/rebasegen/rebasegen/internal/words"
)

// Unpaired is a desired object with no live counterpart: kapp would create it, and nothing was
// compared for it, so no verdict is given on it.
type Unpaired struct {
	Resource pair.Identity
	// Hint: where a live object of the same group, kind and name is: "did you mean -n NS?", or
	// that the manifest moves it when it declares its namespace
	Hint   string
	LiveIn []string // the namespaces the live objects hold it in, when the hint names -n
}

func (u Unpaired) String() string {
	if u.Hint == "" {
		return u.Resource.String()
	}
	return u.Resource.String() + " (" + u.Hint + ")"
}

// UnpairedOf lists the desired objects that pair with no live object, each with a hint when the
// live objects hold one of the same group, kind and name in another namespace.
func UnpairedOf(set *pair.Set) []Unpaired {
	elsewhere := map[string][]string{} // group/kind/name -> live namespaces
	for _, d := range slices.Concat(set.Deleted, set.LiveOnly) {
		if d.Namespace == "" {
			continue // no namespace to suggest
		}
		k := key(d)
		elsewhere[k] = append(elsewhere[k], d.Namespace)
	}
	var out []Unpaired
	for _, d := range set.Created {
		u := Unpaired{Resource: pair.Identity{Group: d.GroupKind().Group, Kind: d.Kind, Namespace: d.Namespace, Name: d.Name}}
		// a live object of the same name in its own namespace is one kapp replaces under another
		// name (kapp.k14s.io/versioned added or removed in Git: pair.Build), not a wrong -n
		nss := slices.DeleteFunc(slices.Clone(elsewhere[key(d)]), func(ns string) bool { return ns == d.Namespace })
		switch ns, _, _ := d.Field("metadata", "namespace"); {
		case len(nss) == 0:
		case set.Deploy.Places():
			// -n cannot pair it either: kapp deploys every namespaced object where they say
			u.Hint = fmt.Sprintf("the kapp deploy step of %s (intoNs, mapNs) puts it in namespace %s, the live objects hold it in %s", set.Deploy.From, d.Namespace, strings.Join(nss, ", "))
		case ns != nil && ns != "":
			// -n fills in only a namespace the manifest leaves out: it cannot pair this one
			// (newcomer walkthrough 6, N6-5: it was suggested, even when given)
			u.Hint = fmt.Sprintf("the manifest moves it to namespace %s from %s, where the live objects hold it", d.Namespace, strings.Join(nss, ", "))
		default:
			u.Hint = fmt.Sprintf("the live objects hold it in namespace %s: did you mean -n %s?", strings.Join(nss, ", "), nss[0])
			u.LiveIn = nss
		}
		out = append(out, u)
	}
	return out
}

func key(d load.Doc) string { return d.GroupKind().String() + "/" + d.Name }

// NothingPaired is the error for inputs where no desired object has a live counterpart, or no
// namespaced one while the live objects hold some of them in another namespace (the cluster-scoped
// ones alone paired: a wrong -n): there is nothing to compare them with, so no rule for them can be
// verified. The -n that pairs them comes first.
func NothingPaired(set *pair.Set, u []Unpaired) error {
	namespaced := slices.ContainsFunc(set.Pairs, func(p pair.Pair) bool { return p.ID.Namespace != "" })
	var nss []string
	for _, x := range u {
		if len(x.LiveIn) > 0 && !slices.Contains(nss, x.LiveIn[0]) {
			nss = append(nss, x.LiveIn[0])
		}
	}
	if err := RulesOnly(set); err != nil {
		return err
	}
	var b strings.Builder
	switch {
	case len(set.Created) == 0 || namespaced || len(set.Pairs) > 0 && len(nss) == 0:
		return nil
	case len(nss) > 0:
		fmt.Fprintf(&b, "did you mean -n %s? ", strings.Join(nss, " or -n "))
	}
	what := "no desired object pairs with a live object (%d desired, none found live), so nothing was compared:"
	if len(set.Pairs) > 0 {
		what = "no namespaced desired object pairs with a live object (%d unpaired), so nothing was compared for them:"
	}
	if len(nss) > 0 {
		what = "N" + what[1:]
	}
	fmt.Fprintf(&b, what, len(u))
	for i, x := range u {
		if i == 5 {
			fmt.Fprintf(&b, "\n  ... and %d more", len(u)-5)
			break
		}
		b.WriteString("\n  " + x.String())
	}
	return fmt.Errorf("%s", b.String())
}

// RulesOnly is the error for desired inputs holding kapp Config documents and no object: the
// rules given as the manifests, which generate wrote as an empty Config and check passed, exit 0
// (newcomer walkthrough 6, N6-12 and its check).
func RulesOnly(set *pair.Set) error {
	if len(set.Pairs) > 0 || len(set.Created) > 0 || len(set.InForce()) == 0 {
		return nil
	}
	var files []string
	for _, c := range set.InForce() {
		if !slices.Contains(files, c.Source.File) {
			files = append(files, c.Source.File)
		}
	}
	return fmt.Errorf("%s: only kapp rules (kapp Config documents), no objects, so nothing was compared: give the manifests with -d (--desired), and rule files to check with --rules", strings.Join(files, ", "))
}

// PendingDelete is a live object of the app with no desired counterpart: kapp deletes it on deploy.
type PendingDelete struct {
	Resource pair.Identity
	// Naming: the rules in force that select it and no desired object, and of a rule selecting
	// desired objects too its matchers that do (decided on identity alone where kapp's matchers
	// read more, as kappmatch.ByIdentity: undecided counts as selecting): they select nothing
	// once the deploy deleted it.
	Naming []RuleAt
}

// PendingDeletes lists the live objects kapp would delete on deploy (pair.Set.Deleted), each with
// the rules of rules, or matchers of them, naming it alone. A live object a pending create's
// "did you mean -n" names (unpaired: UnpairedOf) is not one: it is that create's, read under a
// wrong -n, which its hint says once.
func PendingDeletes(set *pair.Set, unpaired []Unpaired, rules []Rule) ([]PendingDelete, error) {
	var desired []kappmatch.Identity // decoded once, when a rule selects a deleted object
	elsewhere := LiveElsewhere(unpaired)
	var out []PendingDelete
	for _, d := range set.Deleted {
		pd := PendingDelete{Resource: pair.Identity{Group: d.GroupKind().Group, Kind: d.Kind, Namespace: d.Namespace, Name: d.Name}}
		if elsewhere[pd.Resource] {
			continue
		}
		o, err := d.Object()
		if err != nil {
			return nil, err
		}
		live := kappmatch.IdentityOf(o.Unstructured)
		// alone says whether m selects the deleted object and no desired one
		alone := func(m kappmatch.Matcher) (bool, error) {
			if !selects(m, live) {
				return false, nil
			}
			if desired == nil {
				if desired, err = identities(set); err != nil {
					return false, err
				}
			}
			return !slices.ContainsFunc(desired, func(id kappmatch.Identity) bool { return selects(m, id) }), nil
		}
		for _, r := range rules {
			if r.At.Generated || !selects(r.matcher, live) || slices.Contains(pd.Naming, r.At) {
				continue
			}
			ok, err := alone(r.matcher)
			if err != nil {
				return nil, err
			}
			if ok {
				pd.Naming = append(pd.Naming, r.At)
				continue
			}
			for _, p := range matcherParts(r.matchers) {
				m, built := kappmatch.New([]ctlconf.ResourceMatcher{p.m})
				if !built {
					continue
				}
				if ok, err := alone(m); err != nil {
					return nil, err
				} else if ok && !slices.ContainsFunc(pd.Naming, func(at RuleAt) bool { return within(at, r.matcherAt(p.path...)) }) {
					pd.Naming = append(pd.Naming, r.matcherAt(p.path...))
				}
			}
		}
		out = append(out, pd)
	}
	return out, nil
}

// LiveElsewhere are the live objects the pending creates' "did you mean -n" hints name.
func LiveElsewhere(unpaired []Unpaired) map[pair.Identity]bool {
	out := map[pair.Identity]bool{}
	for _, u := range unpaired {
		for _, ns := range u.LiveIn {
			id := u.Resource
			id.Namespace = ns
			out[id] = true
		}
	}
	return out
}

func selects(m kappmatch.Matcher, id kappmatch.Identity) bool {
	ok, decided := m.ByIdentityOf(id)
	return ok || !decided
}

// part is a matcher of a rule selecting some of what the rule selects, at path among its
// resourceMatchers.
type part struct {
	path []any
	m    ctlconf.ResourceMatcher
}

// matcherParts are the parts of resourceMatchers ms, outer first: each of several matchers, each
// matcher of an anyMatcher among them, and each matcher of an anyMatcher in an andMatcher among
// them, in the anyMatcher's place (what generate writes for several resources of a rule).
func matcherParts(ms []ctlconf.ResourceMatcher) []part {
	var out []part
	for i, top := range ms {
		if len(ms) > 1 {
			out = append(out, part{[]any{i}, top})
		}
		if top.AnyMatcher != nil {
			for k, item := range top.AnyMatcher.Matchers {
				out = append(out, part{[]any{i, "anyMatcher", "matchers", k}, item})
			}
		}
		if top.AndMatcher == nil {
			continue
		}
		for j, sub := range top.AndMatcher.Matchers {
			if sub.AnyMatcher == nil {
				continue
			}
			for k, item := range sub.AnyMatcher.Matchers {
				alone := slices.Clone(top.AndMatcher.Matchers)
				alone[j] = item
				out = append(out, part{[]any{i, "andMatcher", "matchers", j, "anyMatcher", "matchers", k}, ctlconf.ResourceMatcher{AndMatcher: &ctlconf.AndMatcher{Matchers: alone}}})
			}
		}
	}
	return out
}

// within says whether inner is written in outer: a matcher of the matcher named already.
func within(outer, inner RuleAt) bool {
	return outer.File == inner.File && outer.Doc == inner.Doc && strings.HasPrefix(inner.Key, outer.Key+".")
}

// identities are the identities of the desired objects of set, paired or created; never nil.
func identities(set *pair.Set) ([]kappmatch.Identity, error) {
	out := make([]kappmatch.Identity, 0, len(set.Pairs)+len(set.Created))
	for _, d := range slices.Concat(set.Created, pairedDesired(set)) {
		o, err := d.Object()
		if err != nil {
			return nil, err
		}
		out = append(out, kappmatch.IdentityOf(o.Unstructured))
	}
	return out, nil
}

func pairedDesired(set *pair.Set) []load.Doc {
	out := make([]load.Doc, len(set.Pairs))
	for i, p := range set.Pairs {
		out[i] = p.Desired
	}
	return out
}

// finding is the pending create as check reports it: a change made in Git, failing the gate when
// fail says so, or when the live objects hold it in another namespace (Hint: most likely a wrong
// -n or capture, not a change made in Git).
func (u Unpaired) finding(fail bool) Finding {
	if u.Hint != "" {
		return Finding{Kind: KindPendingCreate, Resource: u.Resource, Fails: true,
			Evidence: "no live counterpart: kapp would create it, nothing was compared; " + u.Hint}
	}
	return Finding{Kind: KindPendingCreate, Resource: u.Resource, Fails: fail, Evidence: pendingCreate}
}

// pendingCreate says what kapp does with a desired object Git adds, and what to do about it.
const pendingCreate = "no live counterpart: a change made in Git, kapp creates it on deploy; nothing could be compared (no live object yet), " +
	"so the rules cannot cover what the API server sets on it: after the deploy, capture the live objects again (rebasegen capture) " +
	"and regenerate the rules (rebasegen generate: the command in their header), and check judges it then"

// finding is the pending delete as check reports it: a change made in Git, failing the gate when
// fail says so.
func (d PendingDelete) finding(fail bool) Finding {
	evidence := "a live object of the app (labelled " + kappconv.AppLabel + " as the paired objects, or those the manifests move to another namespace, are; created by kapp) with no desired counterpart: a change made in Git, kapp deletes it on deploy"
	if len(d.Naming) > 0 {
		// each rule's name holds commas: the names apart with semicolons, last
		at := make([]string, 0, len(d.Naming))
		for _, r := range d.Naming[:words.Shown(len(d.Naming), maxReads)] {
			at = append(at, r.String())
		}
		if rest := len(d.Naming) - len(at); rest > 0 {
			at = append(at, fmt.Sprintf("and %d more", rest))
		}
		evidence += "; the rules in force, or matchers of them, that select it and no desired object can go once the deploy deleted it " +
			"(rules rebasegen generated: " + classify.RegenerateAfterDeploy + ", never by hand): " + strings.Join(at, "; ")
	}
	return Finding{Kind: KindPendingDelete, Resource: d.Resource, Fails: fail, Evidence: evidence}
}
