package yttrender

// ytt's error for a template reading a data value that is not there, made one line naming the
// file, the line and the value to give.

import (
	"fmt"
	"regexp"
	"strings"

	"carvel.dev/ytt/pkg/files"
)

// needsValue turns ytt's error for a template reading a data value that is not there (its
// several lines, ytt's stack) into one line naming the file and line, and the value to pass or,
// with a data values schema, to declare; nil for any other error. read are the files ytt was
// given (their paths as given, by ytt's names), fs ytt's files.
func (p Package) needsValue(msg string, read []yttFile, fs []*files.File) error {
	key, file, line, hint, ok := missingValue(msg)
	if !ok {
		return nil
	}
	given := func(rel string) string { // the path as given, for ytt's name of a file
		for _, f := range read {
			if f.Rel == rel {
				return f.Name
			}
		}
		return rel
	}
	where := given(file) + ":" + line
	for _, t := range p.Templates {
		if t.Name == file {
			where = t.Source + " line " + line
		}
	}
	for _, t := range p.Inline {
		if t.Name != file {
			continue
		}
		if given(file) != file { // ytt names a package file and an inline file alike
			where += " or " + t.Source + " line " + line
		} else {
			where = t.Source + " line " + line
		}
	}
	if hint != "" {
		hint = fmt.Sprintf(" (ytt: did you mean .%s?)", hint)
	}
	for _, f := range fs {
		data, err := f.Bytes()
		if err != nil {
			continue
		}
		for _, a := range yttAnnotations(f.RelativePath(), data) {
			if strings.HasPrefix(a, "data/values-schema") {
				return fmt.Errorf("%s: reads data value %q%s, which the data values schema (%s) does not declare", where, key, hint, given(f.RelativePath()))
			}
		}
	}
	return fmt.Errorf("%s: needs data value %q%s: pass --value %s=...", where, key, hint, key)
}

// ytt's error text for a template reading a data value that is not there: starlark's message for
// a struct without the attribute (with its spelling hint), then the template lines of the call
// stack, innermost first, "FILE:LINE | TEXT". ytt keeps its error's parts unexported
// (template.CompiledTemplateMultiError), and a render in a child process returns only the text.
var (
	noAttr     = regexp.MustCompile(`^- struct has no \.(\w+) field or method(?: \(did you mean \.(\w+)\?\))?$`)
	sourceLine = regexp.MustCompile(`^\s+(\S+):(\d+) \| (.*)$`)
	valuesRef  = regexp.MustCompile(`\bdata\.values((?:\.\w+)+)`)
)

// missingValue reads ytt's error text: when the innermost template line reads
// data.values...KEY that is not there, the dotted key, the file and line as ytt names them and
// ytt's spelling hint ("" for none); ok is false for any other error.
func missingValue(msg string) (key, file, line, hint string, ok bool) {
	lines := strings.Split(msg, "\n")
	for i, l := range lines {
		m := noAttr.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		for _, s := range lines[i+1:] {
			if strings.HasPrefix(s, "- ") {
				break // the next error
			}
			src := sourceLine.FindStringSubmatch(s)
			if src == nil {
				continue
			}
			for _, ref := range valuesRef.FindAllStringSubmatch(src[3], -1) {
				parts := strings.Split(strings.TrimPrefix(ref[1], "."), ".")
				for j, part := range parts {
					if part == m[1] {
						return strings.Join(parts[:j+1], "."), src[1], src[2], m[2], true
					}
				}
			}
			break // the innermost line reads no such data value
		}
	}
	return "", "", "", "", false
}
