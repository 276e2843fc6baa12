package verdict

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/pair"
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
		nss := elsewhere[key(d)]
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

// PendingDeletes lists the live objects kapp would delete on deploy (pair.Set.Deleted).
func PendingDeletes(set *pair.Set) []pair.Identity {
	var out []pair.Identity
	for _, d := range set.Deleted {
		out = append(out, pair.Identity{Group: d.GroupKind().Group, Kind: d.Kind, Namespace: d.Namespace, Name: d.Name})
	}
	return out
}
