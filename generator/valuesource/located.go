package valuesource

import (
	"slices"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/lint"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/generator/verdict"
	"github.com/rebasegen/rebasegen/generator/yttrender"
)

// Field is a resource's field, as findings name it.
type Field struct {
	Resource pair.Identity
	Path     string
}

// Located says where each drift, pending change and pending create of the verdict vd was made, as
// far as the inputs tell: the desired document when it is a file's, the field's line in it; for
// the package's rendering (its lines are no file's), the template's line of the field (ytt's
// position of it), and for a pending value the line of the one data value feeding it (Sources)
// when there is one. A field made nowhere known is absent.
func Located(pkg yttrender.Package, rd *load.Reader, rep *classify.Report, set *pair.Set, vd *verdict.Verdict) (map[Field]load.Source, error) {
	desired := map[pair.Identity]load.Doc{}
	for _, r := range rep.Resources {
		desired[r.ID] = r.Desired
	}
	at := map[Field]load.Source{}
	lines := lint.NewLines(rd)
	for _, d := range set.Created { // a pending create: the document Git adds
		if src, ok := written(lines, d, load.Object{}); ok {
			at[Field{Resource: pair.Identity{Group: d.GroupKind().Group, Kind: d.Kind, Namespace: d.Namespace, Name: d.Name}}] = src
		}
	}
	// the Secret's document, as a pending create's; the document of another app's object, which
	// the author takes out of the manifests
	var whole []pair.Identity
	for _, u := range vd.Unjudged {
		whole = append(whole, u.Resource)
	}
	for _, o := range vd.Ownership {
		whole = append(whole, o.Resource)
	}
	for _, d := range vd.DeployFails {
		whole = append(whole, d.Resource)
	}
	for _, id := range whole {
		if d, ok := desired[id]; ok {
			if src, ok := written(lines, d, load.Object{}); ok {
				at[Field{Resource: id}] = src
			}
		}
	}
	var rendered []verdict.Residual // pending values of a package's rendering: its values files may write them
	objects := map[pair.Identity]load.Object{}
	for _, r := range slices.Concat(vd.Drift, vd.Pending) {
		d, ok := desired[r.Resource]
		if !ok {
			continue
		}
		o, decoded := objects[r.Resource]
		if !decoded {
			var err error
			if o, err = d.Object(); err != nil {
				return nil, err
			}
			objects[r.Resource] = o
		}
		// the field's own line, or its nearest parent's the manifest declares (a field only the
		// live object holds), else the document's (newcomer14 N14-4)
		if src, ok := written(lines, d, o, r.Finding.Path.Steps(o.Object)...); ok {
			at[Field{r.Resource, r.Finding.Path.String()}] = src
		}
		if isRendered(d.Source.File) && r.Finding.Class == classify.Pending {
			rendered = append(rendered, r)
		}
	}
	values, err := Sources(pkg, rd, desired, rendered)
	for i, src := range values {
		r := rendered[i]
		at[Field{r.Resource, r.Finding.Path.String()}] = src
	}
	return at, err
}

// written is where the document d (decoded: o), or what path names in it, was written: the line in
// its file of the path's nearest parent the file declares, else the document's; for a document ytt
// rendered, the line of the template's node that made it (load.Doc.WrittenAt: ytt's output is no
// file). False for what stdin or no file of the inputs wrote. path needs o.
func written(lines *lint.Lines, d load.Doc, o load.Object, path ...any) (load.Source, bool) {
	src, ok := d.Source, true
	switch {
	case isRendered(src.File):
		src, ok = d.WrittenAt(path...)
	case len(path) > 0:
		src.Line = lines.Nearest(o, path...)
	}
	return src, ok && src.File != "-"
}

// isRendered reports whether file names ytt's output: its lines are no file's.
func isRendered(file string) bool {
	_, ok := yttrender.RenderedFrom(file)
	return ok
}
