// Package words holds the few wording helpers every command's output shares.
package words

import (
	"fmt"
	"strings"
)

// Count is "1 rule", "2 rules", "0 rules": a count with its noun, plural unless n is 1.
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// Shown is how many of n items a list of at most max names: all of them when at most one more
// would be left (naming it is no longer than counting it).
func Shown(n, max int) int {
	if n <= max+1 {
		return n
	}
	return max
}

// List joins items with ", ", naming at most max of them (Shown) and counting the rest: "a, b
// (and 3 more)".
func List(items []string, max int) string {
	n := Shown(len(items), max)
	s := strings.Join(items[:n], ", ")
	if rest := len(items) - n; rest > 0 {
		s += fmt.Sprintf(" (and %d more)", rest)
	}
	return s
}

// A is noun with its indefinite article, as it is read aloud: "a Deployment", "an Ingress", "an
// HPA" (a word of capitals is read letter by letter), "a v1 ConfigMap".
func A(noun string) string {
	if noun == "" {
		return noun
	}
	vowels := "aeiouAEIOU"
	if len(noun) > 1 && isUpper(noun[0]) && isUpper(noun[1]) {
		vowels = "AEFHILMNORSX" // the letters whose names start with a vowel sound
	}
	if strings.IndexByte(vowels, noun[0]) >= 0 {
		return "an " + noun
	}
	return "a " + noun
}

func isUpper(b byte) bool { return 'A' <= b && b <= 'Z' }
