package yttrender

// ytt annotations of a file, as ytt's parser reads them: which files are templates, and what in
// them changes the other files.

import (
	"bytes"
	"strings"

	"carvel.dev/ytt/pkg/yamlmeta"

	"github.com/rebasegen/rebasegen/generator/load"
)

// HasYTTAnnotations reports whether data holds ytt annotations as ytt's parser reads them: a
// comment starting "#@" anywhere a comment can be (its own line, after "---", after a value), not
// text in a block scalar (a ytt rebase rule's overlay). Data ytt cannot parse has none.
func HasYTTAnnotations(name string, data []byte) bool { return len(yttAnnotations(name, data)) > 0 }

// ChangesOtherFiles says what in data's ytt annotations changes the documents of the other files
// ytt renders it with ("" for nothing): overlays, and data values, a data values schema or a
// library's values, which the templates of every file read (ytt applies data values documents
// in the order of its files, the last one winning).
func ChangesOtherFiles(name string, data []byte) string {
	for _, a := range yttAnnotations(name, data) {
		switch a = strings.TrimSpace(a); {
		case strings.HasPrefix(a, "overlay/") || strings.Contains(a, "@ytt:overlay"):
			return "ytt overlays"
		case strings.HasPrefix(a, "data/values-schema"):
			return "a ytt data values schema (#@data/values-schema)"
		case strings.HasPrefix(a, "data/values"):
			return "ytt data values (#@data/values)"
		case strings.HasPrefix(a, "library/ref"):
			return "data values for a ytt library (#@library/ref)"
		}
	}
	return ""
}

// yttAnnotations are the ytt annotations of data, each without its "#@".
func yttAnnotations(name string, data []byte) []string {
	if !bytes.Contains(data, []byte("#@")) {
		return nil // no annotation to read
	}
	if load.Aliases(name, data) != nil {
		return nil // refused by whichever reader reads it
	}
	// ytt's parser expands every alias, and builds a node per expanded value: it reads data with
	// its aliases replaced (they hold no comment); where they cannot be found, every "#@" of the
	// text counts, which can only make a file read with ytt (bounded: see runWithin) or refused.
	plain, ok := load.WithoutAliases(data)
	if !ok {
		var out []string
		for _, line := range bytes.Split(data, []byte("#@"))[1:] {
			a, _, _ := bytes.Cut(line, []byte("\n"))
			out = append(out, string(a))
		}
		return out
	}
	ds, err := yamlmeta.NewDocumentSetFromBytes(plain, yamlmeta.DocSetOpts{AssociatedName: name})
	if err != nil {
		return nil
	}
	var out []string
	for _, c := range ds.AllComments {
		if a, ok := strings.CutPrefix(c.Data, "@"); ok {
			out = append(out, a)
		}
	}
	return out
}
