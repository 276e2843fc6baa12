package verdict

// Which rule files a hidden change is blamed on, where the rules in force come from several.

import (
	"slices"
	"strings"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/pair"
)

// blameFiles names, where the rules judged come from more than one file (besides the package's
// own Configs), the files a hidden change needs: those with whose Configs left out kapp's engine no longer finds it hidden (hide
// asked again, on the resources with a hidden change). blame reads kapp's rebase, which names the
// first rule to rewrite a value: with two files writing it (a hand rule copying a Deployment's
// containers from the live object, the generated rules copying the defaulted fields in them),
// the blame followed the order of --rules, and named the generated rules, whose regeneration
// cannot help, for a removal only the hand rule puts back (newcomer11 N11-3). Where one file is
// needed, the change is blamed on its rules as blame names them with that file's rules alone in
// force (blameBy); where several are, on the rules in force together (Together: no file or
// line), each file's named, files in name order; where none is, on every file whose rules alone
// hide it, where several do, named in name order (EachAlone), the first's rule the one At names;
// else (the package's own Configs hide it, or fewer than two files' rules alone do) blame's
// answer stands.
func (v *Verdict) blameFiles(in Input, pending []Residual) error {
	// the package's own Configs shape the manifest kapp applies (a Config's additionalLabels
	// make a change, they do not hide one): never left out
	own := map[string]bool{}
	if in.Set != nil {
		for _, o := range in.Set.Configs {
			own[o.Source.File] = true
		}
	}
	var files []string // the rule files
	for _, r := range in.Rules {
		if !own[r.source] && !slices.Contains(files, r.source) {
			files = append(files, r.source)
		}
	}
	if len(files) < 2 || len(v.Hidden) == 0 {
		return nil
	}
	slices.Sort(files) // the order findings name them in: not --rules'
	ids := map[pair.Identity]bool{}
	for _, h := range v.Hidden {
		ids[h.Resource] = true
	}
	rep := *in.Report
	rep.Resources = slices.DeleteFunc(slices.Clone(rep.Resources), func(r classify.Resource) bool { return !ids[r.ID] })
	pending = slices.DeleteFunc(slices.Clone(pending), func(p Residual) bool { return !ids[p.Resource] })
	// hidden is what hide finds on those resources with the Configs of the files out leaves out
	// in force (blame naming the rules of those by leaves in force), by resource and path
	hidden := func(out, by func(string) bool) (map[string]Hidden, error) {
		sub := in
		sub.Report, sub.Stage = &rep, nil
		sub.Configs, sub.Rules = without(in, out)
		if by != nil {
			b := in
			b.Configs, b.Rules = without(in, by)
			sub.blameBy = &b
		}
		s := &Verdict{beside: v.beside, Pending: slices.Clone(pending)}
		if err := s.hide(sub, unstructuredOf(sub.Configs)); err != nil {
			return nil, err
		}
		found := map[string]Hidden{}
		for _, h := range s.Hidden {
			found[h.String()] = h
		}
		return found, nil
	}
	needs := map[string][]string{} // by hidden change: the files it needs
	for _, f := range files {
		found, err := hidden(func(file string) bool { return file == f }, nil)
		if err != nil {
			return err
		}
		for _, h := range v.Hidden {
			if _, ok := found[h.String()]; !ok {
				needs[h.String()] = append(needs[h.String()], f)
			}
		}
	}
	named := map[string]map[string]Hidden{} // by file: the changes as blame names them with its rules alone
	name := func(f string) error {
		if named[f] != nil {
			return nil
		}
		var err error
		named[f], err = hidden(func(string) bool { return false }, func(file string) bool { return file != f && slices.Contains(files, file) })
		return err
	}
	for _, fs := range needs {
		for _, f := range fs {
			if err := name(f); err != nil {
				return err
			}
		}
	}
	for i, h := range v.Hidden {
		fs := needs[h.String()]
		switch len(fs) {
		case 0:
			// no file is needed: each of several may hide it alone, and blame named whichever
			// --rules gave first (fix28e item 4); every such file is named, in name order
			var alone []Hidden
			for _, f := range files {
				if err := name(f); err != nil {
					return err
				}
				if by, ok := named[f][h.String()]; ok && by.At != (RuleAt{}) {
					alone = append(alone, by)
				}
			}
			if len(alone) > 1 {
				rules := make([]string, len(alone))
				for k, by := range alone {
					rules[k] = by.Rule
				}
				v.Hidden[i].Rule = strings.Join(rules, " and by ") + ", each alone"
				v.Hidden[i].At, v.Hidden[i].EachAlone = alone[0].At, true
			}
		case 1:
			if by, ok := named[fs[0]][h.String()]; ok {
				v.Hidden[i].Rule, v.Hidden[i].At = by.Rule, by.At
			}
		default:
			names := make([]string, len(fs))
			for k, f := range fs {
				// the file itself where blame names no rule of its alone (a rule making another
				// file's matcher hold writes no value of the change itself)
				names[k] = f
				if by := named[f][h.String()]; by.At.File == f {
					names[k] = by.Rule
				}
			}
			v.Hidden[i].Rule = "the rules in force together, no one file's alone: " + strings.Join(names, "; ") + " (with any of their files left out, the change is not hidden)"
			v.Hidden[i].At, v.Hidden[i].Together = RuleAt{}, true
		}
	}
	return nil
}

// without is in's Configs and Rules but those written in the files out names.
func without(in Input, out func(string) bool) ([]load.Object, []Rule) {
	configs := slices.DeleteFunc(slices.Clone(in.Configs), func(o load.Object) bool { return out(o.Source.File) })
	rules := slices.DeleteFunc(slices.Clone(in.Rules), func(r Rule) bool { return out(r.source) })
	return configs, rules
}
