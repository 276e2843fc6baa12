package load

import (
	"bytes"
	"regexp"
)

// ownMessage matches the lines rebasegen writes on stderr: its errors and run time ("rebasegen: "),
// notes and warnings, generate's summary ("16 rules; kapp keeps ...", "1 ignore; Argo CD ...")
// and what its verification still finds ("kapp still updates ...", "Argo CD still shows ...",
// "not compared: ..."). A rules file written with `rebasegen generate ... &> rules.yml` starts
// with them, and its YAML error alone ("line 3: could not find expected ':'") did not say why
// (newcomer12 N12-5).
var ownMessage = regexp.MustCompile(`^(?:(?:rebasegen|note|warning|not compared): |(?:kapp still updates|Argo CD still shows) |[0-9]+ [a-z]+; )`)

// ownMessagesHint is what to add to the error of a file that cannot be read whose first line is
// one of rebasegen's own messages, or "".
func ownMessagesHint(data []byte) string {
	first, _, _ := bytes.Cut(bytes.TrimPrefix(data, []byte("\ufeff")), newline)
	if !ownMessage.Match(first) {
		return ""
	}
	return " (the file starts with rebasegen's own messages, its stderr written with the output by &> or 2>&1: write rules with --output-file, or send stderr elsewhere: 2>/dev/null)"
}
