package emit

// Text made safe for the YAML the rules are written in: scalars that parse back to exactly
// themselves, comments that hold one line and show what the file holds (escape.Text: YAML rejects
// control characters and U+FFFE/U+FFFF, reads NEL, LS and PS as line breaks, and bidirectional
// controls make a reviewer see text in another order than the file holds, CVE-2021-42574).

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/rebasegen/rebasegen/internal/escape"
)

var bare = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_./-]*$`)

// YAML 1.1 reads these bare words as booleans or null.
var reserved = map[string]bool{"y": true, "n": true, "yes": true, "no": true, "on": true, "off": true, "true": true, "false": true, "null": true}

// scalar writes a string as a YAML scalar: bare when unambiguous, JSON-quoted otherwise, so
// names with quotes, '#@', newlines or YAML syntax parse back to exactly themselves.
func scalar(s string) string {
	if bare.MatchString(s) && !reserved[strings.ToLower(s)] {
		return s
	}
	q, _ := json.Marshal(s)
	// JSON leaves DEL and the C1 controls raw, which YAML rejects ("control characters are not
	// allowed") or reads as a line break (NEL): escape them (found by FuzzRulesRoundTrip), and
	// what a reviewer would not see (bidi controls, zero-width characters), as escape.Text does.
	var b strings.Builder
	for _, r := range string(q) {
		switch {
		case !escape.Unsafe(r):
			b.WriteRune(r)
		case r > 0xFFFF:
			fmt.Fprintf(&b, `\U%08x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	// a GitHub runner reads "##[" as a legacy workflow command anywhere in a line it logs
	return strings.ReplaceAll(b.String(), "##[", `#\x23[`)
}

// writeIndented writes text as the body of a YAML block scalar; empty lines stay empty.
func writeIndented(b *strings.Builder, text, indent string) {
	for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if line != "" {
			b.WriteString(indent + line)
		}
		b.WriteByte('\n')
	}
}
