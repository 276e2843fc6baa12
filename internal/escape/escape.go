// Package escape makes text that comes from the inputs (object names, managers, file names,
// values, rule contents) safe for each output format, one function per format: Text for
// terminals, logs and the rules' comments, GitHubData and GitHubProperty for GitHub workflow
// commands. JSON needs none: its encoding escapes what it must.
package escape

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Text shows s on one line, as a person or a CI log reader must see it: control characters
// (terminal escape sequences would clear the screen or set its title), format characters
// (bidirectional controls reorder what is shown, zero-width ones hide text: U+202E, U+200B),
// line and paragraph separators, noncharacters and invalid UTF-8 are written Go-style (\x1b, \n,
// \u202e, \xff). Two sequences a GitHub runner reads as a workflow command from any log line
// are broken up: "::" at the start or after a space (the runner trims leading spaces; a wrapped
// line may start after any space) and "##[" anywhere.
// What is left is printable, so the same text is safe in a YAML comment.
func Text(s string) string {
	if safe(s) {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case Unsafe(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
	}
	return commandSafe(strings.ReplaceAll(b.String(), "##[", `#\x23[`))
}

// commandSafe escapes the first ":" of every "::" at the start of s or after a space: text
// wrapped to a width (explain in a pipe) may start a line there, and a runner reads a line whose
// first characters after spaces are "::" as a workflow command.
func commandSafe(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "::")
		if i < 0 {
			break
		}
		before := strings.TrimRightFunc(s[:i], unicode.IsSpace)
		b.WriteString(s[:i])
		if before == "" || len(before) < i {
			b.WriteString(`\x3a:`)
		} else {
			b.WriteString("::")
		}
		s = s[i+2:]
	}
	b.WriteString(s)
	return b.String()
}

// Lines is Text for text of several lines rebasegen lays out itself (a diff, an error with a hint
// on a line of its own): each line escaped, its line breaks kept. A string from the inputs is
// never given whole, its line breaks would start lines of their own (a forged summary): it is
// Text where it is written into the text.
func Lines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = Text(l)
	}
	return strings.Join(lines, "\n")
}

func safe(s string) bool {
	if !utf8.ValidString(s) || strings.Contains(s, "##[") || strings.Contains(s, "::") {
		return false
	}
	for _, r := range s {
		if Unsafe(r) {
			return false
		}
	}
	return true
}

// Unsafe says whether Text escapes r: control (Cc: C0, DEL, C1), format (Cf: bidi, zero-width,
// soft hyphen, BOM), line and paragraph separators, and the noncharacters U+FFFE and U+FFFF,
// which YAML rejects.
func Unsafe(r rune) bool {
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp) || r == 0xFFFE || r == 0xFFFF
}

// GitHubData escapes a workflow command's message as GitHub's toolkit does (escapeData): a line
// break in it cannot end the command and start another. The message's parts that come from the
// inputs are Text first, so what GitHub shows is what Text shows.
func GitHubData(s string) string { return ghData.Replace(s) }

// GitHubProperty escapes a workflow command's property value (a file name) as GitHub's toolkit
// does (escapeProperty: ":" and "," would end the property), after Text: a runner reads "##["
// anywhere in a line, and a name Text changes cannot be one GitHub finds anyway.
func GitHubProperty(s string) string { return ghProperty.Replace(Text(s)) }

// JSON escapes an encoded JSON document the way Text would show it, keeping its value: what
// encoding/json leaves raw in strings (DEL, C1 controls, bidi and zero-width characters) becomes
// \uXXXX, and "##[" (read by a GitHub runner from any line it logs) #\u0023[. Outside strings
// JSON holds only ASCII punctuation, spaces and line breaks, which are kept.
func JSON(doc []byte) []byte {
	var b bytes.Buffer
	for _, r := range string(doc) {
		switch {
		case r == '\n' || !Unsafe(r):
			b.WriteRune(r)
		case r > 0xFFFF:
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return bytes.ReplaceAll(b.Bytes(), []byte("##["), []byte(`#\u0023[`))
}

var (
	ghData     = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	ghProperty = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)
