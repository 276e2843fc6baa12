// Package load reads desired and live YAML or JSON into Kubernetes objects, remembering where
// each object came from so that every later error can name the file, document and line.
package load

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/internal/escape"
)

// Source locates one object in the inputs.
type Source struct {
	File string // path as given, "-" for stdin
	Doc  int    // 1-based document index within the file; 0 for an object given in memory
	Line int    // 1-based line where the document starts
	Item int    // 1-based item index inside a kind: List document, 0 otherwise
	// Generated: the document comes from a file bearing rebasegen's header (IsGenerated), read
	// as an input or rendered in a package: kapp applies it, but it is rebasegen's output.
	Generated bool
	// From: a document ytt rendered (File names ytt's output), the template file it came from (a
	// rules Secret's key for the Secret's files); FromLine its line there when ytt passed the
	// document through as written (a file without ytt annotations), else 0.
	From     string
	FromLine int
	// Written: a document ytt rendered for an analysis (yttrender.Package.RenderInput), where its
	// templates wrote each node of it (WrittenAt); nil otherwise.
	Written *Written
}

func (s Source) String() string {
	// the file name on one line, as findings show it: errors quote sources, and a name holding a
	// line break would start a line of the caller's choosing in a log
	if s.Doc == 0 {
		// an object a library caller passed in memory: it has no document or line to name
		return escape.Text(s.File)
	}
	str := fmt.Sprintf("%s: document %d (line %d)", escape.Text(s.File), s.Doc, s.Line)
	if s.Item > 0 {
		str += fmt.Sprintf(", item %d", s.Item)
	}
	if at, ok := s.Written.At(0); ok { // a line of ytt's output is no file's: the template's is
		str += fmt.Sprintf(", from %s line %d", escape.Text(at.File), at.Line)
	}
	return str
}

// Object is one Kubernetes object and where it was read from.
type Object struct {
	*unstructured.Unstructured
	Source Source
}

// Error is an input error that names its location and, when known, the field at fault.
type Error struct {
	Source Source
	Field  string
	Msg    string
	// Steps locate Field in the document as written (keys and list indexes), for its line; nil
	// when not known.
	Steps []any
	// Line is Field's line in Source.File, 0 when not known (Steps found in no file's text).
	Line int
	// Written: a document ytt rendered (Source.Written), the template file and line that wrote
	// Field, or its nearest parent written (Doc.WrittenAt); zero when not known. ytt's output,
	// Source.File, is no file a person edits.
	Written Source
}

func (e *Error) Error() string {
	switch {
	case e.Field != "" && e.Written.File != "":
		return fmt.Sprintf("%s: field %s (%s line %d): %s", e.Source, e.Field, escape.Text(e.Written.File), e.Written.Line, e.Msg)
	case e.Field != "" && e.Line > 0:
		return fmt.Sprintf("%s: field %s (line %d): %s", e.Source, e.Field, e.Line, e.Msg)
	case e.Field != "":
		return fmt.Sprintf("%s: field %s: %s", e.Source, e.Field, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Source, e.Msg)
}
