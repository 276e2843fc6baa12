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
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return termWidth(f)
	}
	return 0
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
