package verdict

import (
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/kappcover"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/internal/words"
)

// uncoveredDefaults says, on each pending change that adds a list item or a field (only the
// manifest holds it), which fields of it the API server's defaulting sets on this deploy that the
// rules in force do not restore: after the deploy they are ghost diffs, and rules regenerated now
// cannot cover them either (the live objects captured before the deploy lack the item), so the
// rules are to be regenerated after the deploy, from a new capture. The fields are those the
// classifier's defaulting (classify.Removals.Stored) gives the manifest under the new path; the
// object as the server stores it after the deploy is the live one holding the new path as that
// defaulting makes it (a list in the manifest's order, kapp applies it so), and kapp's rebase
// code (kappcover) says which of those fields the rules restore there. A container inserted
// before the others under a ytt rule copying the containers' defaults by name passed check with
// no word of it, and the next pull request failed on the new container's defaults and on the
// rules gone stale (newcomer17 N17-2); the note came only where regenerating the rules from the
// pull request changed the file (StaleFiles' Deferred), which a rule by name never does.
func uncoveredDefaults(in Input, pending []Residual) error {
	var defaults *classify.Removals
	type addition struct {
		at     int   // index in pending
		post   int   // index in rep and posts
		fields []int // the defaulted fields under it: indexes in rep.Resources[post].Findings
	}
	rep := &classify.Report{Version: in.Report.Version}
	var posts []*unstructured.Unstructured
	var stored []map[string]any
	at := map[pair.Identity]int{} // resource -> its index in rep
	var adds []addition
	for j, p := range pending {
		f := p.Finding
		if f.Change != fielddiff.Removed || f.Blocks || len(f.Path) == 0 {
			continue
		}
		k, seen := at[p.Resource]
		if !seen {
			i := slices.IndexFunc(in.Report.Resources, func(r classify.Resource) bool { return r.ID == p.Resource })
			if i < 0 {
				continue
			}
			desired, live, err := in.Report.Resources[i].Objects()
			if err != nil {
				return err
			}
			if defaults == nil {
				if defaults, err = classify.NewRemovals(in.Report); err != nil {
					return err
				}
			}
			made, ok := defaults.Stored(desired.Object)
			if !ok || desired.GetAPIVersion() != live.GetAPIVersion() {
				// no defaulting known for the kind, or a live object read at another version
				// (an HPA's autoscaling/v1), where the new path may not exist: nothing to say
				made = nil
			}
			res := in.Report.Resources[i]
			res.Findings = nil
			k, at[p.Resource] = len(rep.Resources), len(rep.Resources)
			rep.Resources = append(rep.Resources, res)
			posts, stored = append(posts, live.DeepCopy()), append(stored, made)
		}
		if stored[k] == nil || !deployed(posts[k].Object, stored[k], f.Path) {
			continue
		}
		adds = append(adds, addition{at: j, post: k})
	}
	if len(adds) == 0 {
		return nil
	}
	for k, post := range posts {
		desired, _, err := rep.Resources[k].Objects()
		if err != nil {
			return err
		}
		deltas, err := fielddiff.Diff(desired.Unstructured, post)
		if err != nil {
			return err
		}
		for a := range adds {
			if adds[a].post != k {
				continue
			}
			under := pending[adds[a].at].Finding.Path
			for _, d := range deltas {
				if d.Change == fielddiff.Added && d.Noise == "" && len(d.Path) > len(under) && d.Path.HasPrefix(under) {
					adds[a].fields = append(adds[a].fields, len(rep.Resources[k].Findings))
					rep.Resources[k].Findings = append(rep.Resources[k].Findings, classify.Finding{Path: d.Path, Change: d.Change, Live: d.Live, Class: classify.Defaulted})
				}
			}
		}
		doc, err := load.NewDoc(load.Object{Unstructured: post})
		if err != nil {
			return err
		}
		doc.Source, doc.Namespace = rep.Resources[k].Live.Source, rep.Resources[k].Live.Namespace
		rep.Resources[k].Live = doc
	}
	covered, err := kappcover.CoveredBy(rep, in.Configs, false)
	if err != nil {
		return err
	}
	for _, a := range adds {
		under := pending[a.at].Finding.Path
		var left []string
		for _, i := range a.fields {
			p := rep.Resources[a.post].Findings[i].Path
			if !covered[a.post][p.String()] {
				left = append(left, p[len(under):].String())
			}
		}
		if len(left) == 0 {
			continue
		}
		diffs := "ghost diffs"
		if len(left) == 1 {
			diffs = "a ghost diff"
		}
		pending[a.at].Finding.Evidence += "; the API server's defaulting sets its " + words.List(left, maxReads) + " on deploy, which the rules in force do not restore " +
			"(kapp's engine on the object as the server stores it): " + diffs + " after the deploy, which rules regenerated now cannot cover either " +
			"(the live objects captured before the deploy lack it): regenerate the rules after the deploy, from a new capture " +
			"(rebasegen capture, then the rebasegen generate command in their header)"
	}
	return nil
}

// deployed puts into post, the live object, what the server stores at path p once this deploy
// adds it (made: the server's defaulting of the manifest): a field, or a keyed list's item, the
// list then in the manifest's order as kapp applies it. false where post cannot hold it so (an
// atomic list's item, a parent post lacks).
func deployed(post, made map[string]any, p fielddiff.Path) bool {
	v, ok := p.GetDeclared(made)
	if !ok {
		return false
	}
	last := p[len(p)-1]
	switch {
	case last.FieldName != nil:
		return put(post, p, v)
	case last.Key != nil:
		list := p[:len(p)-1]
		if _, ok := getList(list, post); !ok {
			return false
		}
		inManifestOrder(made, post, list, *last.Key)
		_, ok := p.GetDeclared(post)
		return ok
	}
	return false
}
