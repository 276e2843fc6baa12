package kappconv

import (
	"strings"

	"github.com/rebasegen/rebasegen/internal/escape"
)

// extraArgs is what Go's fmt writes for arguments its format has no verb for.
const extraArgs = "%!(EXTRA "

// Readable is err as rebasegen writes kapp's errors: the arguments kapp passes to a format
// without a verb for them written as "(value, ...)" rather than Go's "%!(EXTRA string=value)"
// (kapp's config/conf.go passes a resource's description to fmt.Errorf with a message that has
// no verb, and the error reached rebasegen's output as it was: probe7), and its text escaped on
// one line (escape.Text): kapp's errors quote the inputs, a rule's type, a ytt overlay's fail
// message, whose line break would start a line of rebasegen's output as the input chose. err
// itself stays in the chain (errors.Is, errors.As).
func Readable(err error) error {
	if err == nil {
		return nil
	}
	if s := err.Error(); !strings.Contains(s, extraArgs) && escape.Text(s) == s {
		return err
	}
	return readable{err}
}

type readable struct{ error }

func (r readable) Error() string { return escape.Text(withoutExtra(r.error.Error())) }
func (r readable) Unwrap() error { return r.error }

// withoutExtra rewrites each "%!(EXTRA type=value, type=value)" of s as " (value, value)", its
// parentheses matched (a value may hold some: "secret/x (v1) cluster").
func withoutExtra(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, extraArgs)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		rest := s[i+len(extraArgs):]
		end, depth := -1, 1
		for k, c := range rest {
			switch c {
			case '(':
				depth++
			case ')':
				depth--
			}
			if depth == 0 {
				end = k
				break
			}
		}
		if end < 0 { // unbalanced: leave the rest as it is
			b.WriteString(s[i:])
			return b.String()
		}
		var values []string
		for _, arg := range strings.Split(rest[:end], ", ") {
			_, v, ok := strings.Cut(arg, "=")
			if !ok {
				v = arg
			}
			values = append(values, v)
		}
		b.WriteString(" (" + strings.Join(values, ", ") + ")")
		s = rest[end+1:]
	}
}
