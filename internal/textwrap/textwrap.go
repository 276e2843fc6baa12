// Package textwrap wraps text to a terminal's width at spaces, keeping a line's columns: help
// output and explain's text report.
package textwrap

import (
	"strings"
	"unicode/utf8"
)

// Lines wraps each line of s longer than width at spaces; continuation lines are indented to
// the start of the line's second column (after a run of two or more spaces), or to its own indent.
func Lines(s string, width int) string {
	var out strings.Builder
	for _, line := range strings.SplitAfter(s, "\n") {
		nl := strings.HasSuffix(line, "\n")
		line = strings.TrimSuffix(line, "\n")
		out.WriteString(Line(line, width))
		if nl {
			out.WriteByte('\n')
		}
	}
	return out.String()
}

// Line wraps one line (see Lines).
func Line(line string, width int) string {
	rs := []rune(line)
	if width <= 0 || len(rs) <= width {
		return line
	}
	hang := leadingSpaces(rs)
	if i := strings.Index(string(rs[hang:]), "  "); i > 0 {
		col := hang + utf8.RuneCountInString(string(rs[hang:])[:i])
		col += leadingSpaces(rs[col:])
		if col < width/2 {
			hang = col
		} else {
			hang += 4 // a column too far right to align to: indent continuation lines a little
		}
	}
	if hang >= width/2 { // a deep indent on a narrow terminal: continuation lines start at the margin
		hang = 0
	}
	return wrap(rs, width, hang)
}

// Hanging wraps one line as Line does, each continuation line indented by indent columns: a line
// that names something (a resource) and would read as a second such line from the margin.
func Hanging(line string, width, indent int) string {
	rs := []rune(line)
	if width <= 0 || len(rs) <= width {
		return line
	}
	return wrap(rs, width, min(indent, width/2))
}

// wrap breaks rs at spaces to width, continuation lines indented by hang.
func wrap(rs []rune, width, hang int) string {
	var out []string
	for len(rs) > width {
		cut := -1 // the last space within the width after the text starts, else the first after it
		for i := width; i > leadingSpaces(rs); i-- {
			if rs[i] == ' ' {
				cut = i
				break
			}
		}
		for i := max(width+1, leadingSpaces(rs)+1); cut < 0 && i < len(rs); i++ {
			if rs[i] == ' ' {
				cut = i
			}
		}
		if cut < 0 {
			break
		}
		out = append(out, strings.TrimRight(string(rs[:cut]), " "))
		rs = append([]rune(strings.Repeat(" ", hang)), []rune(strings.TrimLeft(string(rs[cut:]), " "))...)
	}
	return strings.Join(append(out, string(rs)), "\n")
}

func leadingSpaces(rs []rune) int {
	n := 0
	for n < len(rs) && rs[n] == ' ' {
		n++
	}
	return n
}
