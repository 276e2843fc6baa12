package verdict

import (
	"errors"
	"io"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/rebasegen/rebasegen/generator/lint"
)

// notShown stands for a Secret's value in a stale diff, as kapp's diff masks it.
const notShown = "<-- value not shown"

// secretShown is text with the value of every data and stringData key of its Secrets masked, but
// the rules rebasegen writes (stringData's lint.SecretKey): a stale diff shows the keys an operator
// put beside the rules, never their values. false when text does not read as YAML (then nothing
// of it may be shown).
func secretShown(text string) (string, bool) {
	lines := strings.Split(text, "\n")
	masked := map[int]string{} // first line (0-based) of a masked span: the line shown for it
	skip := map[int]bool{}     // the span's other lines
	mask := func(key *yaml.Node, shown string) {
		first, last := key.Line-1, spanEnd(lines, key)
		masked[first] = strings.Repeat(" ", key.Column-1) + shown
		for i := first + 1; i <= last; i++ {
			skip[i] = true
		}
	}
	dec := yaml.NewDecoder(strings.NewReader(text))
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", false
		}
		if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode || field(doc.Content[0], "kind") != "Secret" {
			continue
		}
		root := doc.Content[0].Content
		for i := 0; i+1 < len(root); i += 2 {
			k, v := root[i], root[i+1]
			if k.Value != "data" && k.Value != "stringData" {
				continue
			}
			if v.Kind != yaml.MappingNode || v.Style&yaml.FlowStyle != 0 {
				if v.Tag != "!!null" {
					mask(k, shownKey(k.Value)+": "+notShown)
				}
				continue
			}
			for j := 0; j+1 < len(v.Content); j += 2 {
				if k.Value == "stringData" && v.Content[j].Value == lint.SecretKey {
					continue // rebasegen's rules: the diff is about them
				}
				mask(v.Content[j], shownKey(v.Content[j].Value)+": "+notShown)
			}
		}
	}
	var out []string
	for i, l := range lines {
		switch {
		case skip[i]:
		case masked[i] != "":
			out = append(out, masked[i])
		default:
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n"), true
}

// spanEnd is the last line (0-based) of the value of the block mapping key at key: the line
// before the next line that is not blank and is indented no deeper than the key.
func spanEnd(lines []string, key *yaml.Node) int {
	end := key.Line - 1
	for i := key.Line; i < len(lines); i++ {
		l := strings.TrimRight(lines[i], "\r")
		if strings.TrimSpace(l) == "" {
			continue
		}
		if len(l)-len(strings.TrimLeft(l, " ")) < key.Column {
			break
		}
		end = i
	}
	return end
}

// field is a mapping's scalar value of key.
func field(m *yaml.Node, key string) string {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1].Value
		}
	}
	return ""
}

var plainKey = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

// shownKey is a key as the diff shows it: a Secret's keys are plain; any other is quoted.
func shownKey(k string) string {
	if plainKey.MatchString(k) {
		return k
	}
	return strconv.Quote(k)
}
