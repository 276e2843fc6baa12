package textwrap

import "io"

// Verbatim is a writer that wraps the lines written to it (a terminal's): WriteVerbatim writes s
// as it is. A diff's line cut in two reads as two lines of it, the tail as one unchanged
// (newcomer13 N13-5: an added line's tail looked like a context line).
type Verbatim interface {
	WriteVerbatim(s string) error
}

// WriteVerbatim writes s to w, never wrapped: lines kept whole whatever the terminal's width.
func WriteVerbatim(w io.Writer, s string) error {
	if v, ok := w.(Verbatim); ok {
		return v.WriteVerbatim(s)
	}
	_, err := io.WriteString(w, s)
	return err
}
