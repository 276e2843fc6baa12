package main

import (
	"bytes"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/rebasegen/rebasegen/internal/textwrap"
)

// helpText is a command's DESCRIPTION: its example(s) and its exit statuses, one per line.
func helpText(example string, exits ...string) string {
	var b strings.Builder
	b.WriteString("Example:\n")
	for _, l := range strings.Split(example, "\n") {
		b.WriteString("  " + l + "\n")
	}
	b.WriteString("\nExit status:")
	for _, e := range exits {
		b.WriteString("\n  " + e)
	}
	return b.String()
}

// termWidth is the width help and explain's text wrap to: the terminal's for a terminal, else
// $COLUMNS, else 0 (no wrapping: pipes and files keep full lines).
func termWidth(f *os.File) int {
	if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
		return w
	}
	if w, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && w > 0 {
		return w
	}
	return 0
}

// outputWidth is the width to fit w to: a terminal's, 0 for anything else (files and pipes keep
// full lines for grep and diff).
func outputWidth(w io.Writer) int {
	if f, ok := w.(*os.File); ok && isTTY(f) {
		return termWidth(f)
	}
	return 0
}

// wrapping writes what it is given that ends a line wrapped to width (a terminal's: see
// outputWidth), anything else (a progress line ending in \r) as it is. Every message is written
// whole (one Fprintf), so each Write holds whole lines.
type wrapping struct {
	w     io.Writer
	width int
}

func wrapTo(w io.Writer) io.Writer { return wrapping{w, outputWidth(w)} }

func (x wrapping) Write(p []byte) (int, error) {
	if x.width <= 0 || !bytes.HasSuffix(p, []byte("\n")) {
		return x.w.Write(p)
	}
	if _, err := io.WriteString(x.w, textwrap.Lines(string(p), x.width)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// WriteVerbatim writes s unwrapped (textwrap.Verbatim): a diff's lines.
func (x wrapping) WriteVerbatim(s string) error {
	_, err := io.WriteString(x.w, s)
	return err
}

// explainWidth is the width explain lays its fields out for: the terminal's; in a file or pipe
// $COLUMNS, else 80 (evidence on a line of its own, as on a terminal); 0 with --wide (one line
// per field, for grep).
func explainWidth(w io.Writer, wide bool) int {
	if wide {
		return 0
	}
	if f, ok := w.(*os.File); ok {
		if n := termWidth(f); n > 0 {
			return n
		}
	}
	return 80
}

// helpWidth is the width of --help: the terminal's, else 80, as man pages.
func helpWidth() int {
	if w := termWidth(os.Stdout); w > 0 {
		return w
	}
	return 80
}

// printHelp renders urfave/cli's help template, then wraps each line to the width. The template's
// own wrap counts a flag's name-usage tab as one column, so wrapping after tabwriter is the only
// way to fit: a continuation line is indented to the line's second column (a flag's usage).
func printHelp(w io.Writer, templ string, data any) {
	var b bytes.Buffer
	cli.HelpPrinterCustom(&b, templ, data, nil)
	_, _ = io.WriteString(w, textwrap.Lines(b.String(), helpWidth()))
}
