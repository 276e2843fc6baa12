package lint

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/rebasegen/rebasegen/internal/escape"
	"github.com/rebasegen/rebasegen/internal/format"
	"github.com/rebasegen/rebasegen/internal/words"
)

// Format is an output format of lint (format.Report).
type Format = format.Format

const (
	FormatText   = format.Text   // file:line: severity: message, a suggestion line, a summary
	FormatJSON   = format.JSON   // {"version": 1, "findings": [...]}, see Write
	FormatGitHub = format.GitHub // GitHub Actions workflow commands: ::error file=F,line=L::msg
)

// Write prints the findings. The JSON schema, version 1, is stable:
//
//	{"version": 1, "findings": [{"severity": "error"|"warning", "file": "rules.yml", "line": 7,
//	  "rule": 0, "message": "...", "suggestion": "..."}]}
//
// rule is the 0-based index in the Config's rebaseRules (-1: the document itself); suggestion is
// "" when there is none; line is left out where no line is known (text: file alone; github: no
// line); findings is [] when there are none, sorted by file, line and message.
func Write(w io.Writer, fs []Finding, f Format) error {
	var b strings.Builder
	switch f {
	case FormatText:
		for _, x := range fs {
			fmt.Fprintf(&b, "%s: %s: %s\n", escape.Text(FileLine(x.File, x.Line)), x.Severity, escape.Text(x.text()))
			if x.Suggestion != "" {
				fmt.Fprintf(&b, "    suggestion: %s\n", escape.Text(x.Suggestion))
			}
		}
	case FormatJSON:
		if fs == nil {
			fs = []Finding{}
		}
		enc := json.NewEncoder(&b)
		enc.SetIndent("", "  ")
		if err := enc.Encode(struct {
			Version  int       `json:"version"`
			Findings []Finding `json:"findings"`
		}{1, fs}); err != nil {
			return err
		}
		s := string(escape.JSON([]byte(b.String())))
		b.Reset()
		b.WriteString(s)
	case FormatGitHub:
		for _, x := range fs {
			msg := escape.Text(x.text())
			if x.Suggestion != "" {
				msg += "\nsuggestion: " + escape.Text(x.Suggestion)
			}
			b.WriteString(GitHubCommand(string(x.Severity), x.File, x.Line, msg))
		}
	default:
		return format.Unknown(string(f), format.Report())
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// GitHubCommand is one GitHub Actions workflow command (::error or ::warning) annotating line of
// file (line 0: the file, no line), with GitHub's escaping: a name holding a newline and
// "::error ..." cannot inject a command. msg's parts from the inputs are escape.Text already (its
// own line breaks are kept).
func GitHubCommand(severity, file string, line int, msg string) string {
	switch {
	case file == "": // no file to annotate: the job's log alone
		return fmt.Sprintf("::%s::%s\n", severity, escape.GitHubData(msg))
	case line <= 0:
		return fmt.Sprintf("::%s file=%s::%s\n", severity, escape.GitHubProperty(file), escape.GitHubData(msg))
	}
	return fmt.Sprintf("::%s file=%s,line=%d::%s\n", severity, escape.GitHubProperty(file), line, escape.GitHubData(msg))
}

// FileLine is file:line, or file alone where no line is known (0): a line 0 is no line.
func FileLine(file string, line int) string {
	if line <= 0 {
		return file
	}
	return fmt.Sprintf("%s:%d", file, line)
}

func (f Finding) text() string {
	if f.Rule < 0 {
		return f.Message
	}
	return fmt.Sprintf("rebaseRules[%d]: %s", f.Rule, f.Message)
}

// Summary is "2 errors, 1 warning".
func Summary(fs []Finding) string {
	e, w := Count(fs)
	return words.Count(e, "error") + ", " + words.Count(w, "warning")
}

// HasErrors reports whether any finding is an error (warnings alone pass).
func HasErrors(fs []Finding) bool {
	for _, f := range fs {
		if f.Severity == Error {
			return true
		}
	}
	return false
}
