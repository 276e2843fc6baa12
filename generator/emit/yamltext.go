package emit

// Text made safe for the YAML the rules are written in: scalars that parse back to exactly
// themselves, comments that hold one line and show what the file holds.

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
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
	// allowed") or reads as a line break (NEL): escape them (found by FuzzRulesRoundTrip).
	return yamlUnprintable.ReplaceAllStringFunc(string(q), func(c string) string { return fmt.Sprintf(`\u%04x`, []rune(c)[0]) })
}

var yamlUnprintable = regexp.MustCompile(`[\x7f\x{80}-\x{9f}\x{200e}\x{200f}\x{2028}-\x{202e}\x{2066}-\x{2069}\x{fffe}\x{ffff}]`) // and bidi controls, escaped in values too

// control is what a one-line comment must not hold: control characters, what YAML reads as
// a line break (NEL, LS, PS) or rejects (U+FFFE, U+FFFF), and the bidirectional controls that
// make a reviewer see text in another order than the file holds (CVE-2021-42574, "Trojan Source").
var control = regexp.MustCompile(`[\x00-\x1f\x7f\x{80}-\x{9f}\x{200e}\x{200f}\x{2028}-\x{202e}\x{2066}-\x{2069}\x{fffe}\x{ffff}]+`)

// clean makes text safe for a one-line comment. Invalid UTF-8 (a file name can hold any bytes)
// would make the whole file unreadable as YAML: it becomes U+FFFD (found by FuzzRulesRoundTrip).
func clean(s string) string { return control.ReplaceAllString(strings.ToValidUTF8(s, "\uFFFD"), " ") }

// writeIndented writes text as the body of a YAML block scalar; empty lines stay empty.
func writeIndented(b *strings.Builder, text, indent string) {
	for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if line != "" {
			b.WriteString(indent + line)
		}
		b.WriteByte('\n')
	}
}
