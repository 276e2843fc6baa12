// Package format names rebasegen's output formats once: the --output values each command
// accepts, the words its help and errors use for them, and the list a file name is compared with
// to catch a format given as --output-file.
package format

import (
	"fmt"
	"slices"
	"strings"
)

// Format is one --output value.
type Format string

const (
	Text   Format = "text"   // for people: a terminal or a CI log
	JSON   Format = "json"   // a stable schema for programs, version 1
	GitHub Format = "github" // GitHub Actions workflow commands, annotating the rules file

	Config Format = "config" // generate: one kapp Config document
	YTT    Format = "ytt"    // generate: a file for a package's ytt config directory
	Secret Format = "secret" // generate: a Secret for a PackageInstall's ytt-paths-from-secret-name
)

// Explain, Report and Rules return the formats of explain, of check and lint, and of generate;
// each a fresh slice.
func Explain() []Format { return []Format{Text, JSON} }
func Report() []Format  { return []Format{Text, JSON, GitHub} }
func Rules() []Format   { return []Format{Config, YTT, Secret} }

// Names are the names of every command's formats, and "yaml", which people reach for from
// kubectl: a file named like one is a format given to the wrong flag.
func Names() []string {
	var out []string
	for _, f := range slices.Concat(Rules(), Report()) {
		if !slices.Contains(out, string(f)) {
			out = append(out, string(f))
		}
	}
	return append(out, "yaml")
}

// Words lists fs for help and errors: "text, json or github".
func Words(fs []Format) string {
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = string(f)
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// Parse reads an --output value, one of fs.
func Parse(s string, fs []Format) (Format, error) {
	if f := Format(s); slices.Contains(fs, f) {
		return f, nil
	}
	return "", Unknown(s, fs)
}

// Unknown is the error for an --output value that is none of fs.
func Unknown(s string, fs []Format) error {
	return fmt.Errorf("--output: want %s, got %q", Words(fs), s)
}
