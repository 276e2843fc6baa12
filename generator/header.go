package generator

import (
	"fmt"
	"strings"

	"github.com/rebasegen/rebasegen/generator/emit"
	"github.com/rebasegen/rebasegen/internal/generated"
)

// recordedOptions reads the options a generated file's header records in its "Regenerate:"
// line (the Secret format nests its header); false when it has none.
func recordedOptions(file, text string) (emit.Options, bool, error) {
	cmd, ok := generated.Command(text)
	if !ok {
		return emit.Options{}, false, nil
	}
	o, err := emit.ParseCommand(cmd)
	if err != nil {
		return o, false, fmt.Errorf("%s: header: %w", file, err)
	}
	return o, true, nil
}

// compared is what the staleness check compares: everything but the header's first line, which
// names the version and the inputs, and its digest, checked apart (generated.Of). The Regenerate
// line is compared: a command changed by hand is stale (the README runs it).
func compared(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if !generated.IsMarkerLine(l) && !generated.IsDigestLine(l) {
			out = append(out, l)
		}
	}
	return out
}

// lineOf is the line of text that is the n-th (1-based) line compared keeps.
func lineOf(text string, n int) int {
	kept := 0
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if !generated.IsMarkerLine(l) && !generated.IsDigestLine(l) {
			if kept++; kept == n {
				return i + 1
			}
		}
	}
	return len(lines)
}
