package yttrender

import (
	"fmt"
	"regexp"
	"strings"

	"carvel.dev/ytt/pkg/files"
)

// readValues reads the data values files ytt asks for: the Package's valuesFrom paths, else the
// --values files read; the names ytt gives them in its errors are added to named.
func readValues(cr crTemplate, in yttInput, named map[string]bool) func(string) ([]*files.File, error) {
	return func(path string) ([]*files.File, error) {
		fs, ok := cr.valuesFiles[path]
		if !ok {
			values, ok := in.Values[path]
			if !ok {
				return nil, fmt.Errorf("reading %s: not among the --values files read", path)
			}
			var err error
			if fs, err = ytt(values); err != nil {
				return nil, err
			}
		}
		for _, f := range fs {
			named[f.RelativePath()] = true
		}
		return fs, nil
	}
}

// valueExcerpt is a line of the source excerpt ytt prints under a file's name in an error
// ("  3 |   password: 90210735"): its number, then the line as written.
var valueExcerpt = regexp.MustCompile(`^(\s*\d+ \|).*$`)

// withholdValueLines replaces the lines ytt quotes from data values (files named in values, or
// ytt's own "(data-value... arg)" for --value, --value-yaml and --value-file) in its error text
// msg: a value meant for a Secret (a password of the wrong type, a misspelt key) was printed in
// clear (probe16 P16-3). The file, the line number and ytt's finding stay.
func withholdValueLines(msg string, values map[string]bool) string {
	lines := strings.Split(msg, "\n")
	inValues := false
	for i, l := range lines {
		if h, ok := strings.CutSuffix(l, ":"); ok && h != "" && !strings.HasPrefix(h, " ") {
			inValues = values[h] || strings.HasPrefix(h, "(data-value")
			continue
		}
		if inValues {
			lines[i] = valueExcerpt.ReplaceAllString(l, "$1 <line not shown: a data value may be meant for a Secret>")
		}
	}
	return strings.Join(lines, "\n")
}
