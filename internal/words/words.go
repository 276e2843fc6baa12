// Package words holds the few wording helpers every command's output shares.
package words

import "fmt"

// Count is "1 rule", "2 rules", "0 rules": a count with its noun, plural unless n is 1.
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
