package synth

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// TestAllButMatchesEveryOtherKey: allBut's expression, compiled as kapp compiles a {regex} path
// part, matches a string exactly when it is none of the keys: the keys themselves, their
// prefixes and extensions, strings differing in one character, the empty string, and keys
// holding characters a regular expression or a character class treats specially.
func TestAllButMatchesEveryOtherKey(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []rune("ab-./\\]^[$*\n\u00e9\U0001F600")
	word := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteRune(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	for round := range 200 {
		keys := map[string]bool{}
		for range 1 + rng.IntN(20) {
			keys[word(rng.IntN(6))] = true
		}
		var list []string
		for k := range keys {
			list = append(list, k)
		}
		re, err := regexp.Compile(allBut(list))
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		var probes []string
		for _, k := range list {
			rs := []rune(k)
			for i := range len(rs) + 1 {
				probes = append(probes, string(rs[:i]), string(rs[:i])+word(1), string(rs[:i])+word(3)+string(rs[i:]))
			}
		}
		for range 50 {
			probes = append(probes, word(rng.IntN(7)))
		}
		for _, p := range probes {
			if got := re.MatchString(p); got == keys[p] {
				t.Errorf("round %d, keys %q: %q matched %v", round, list, p, got)
			}
		}
	}
}

// TestAllButLongKeys: Go's regexp refuses a parse tree deeper than 1,000 levels, two per
// character of the longest key: ConfigMap keys and annotation names (at most 253 and 317
// characters) compile, and ownedMaps keeps the per-key paths where longer keys do not.
func TestAllButLongKeys(t *testing.T) {
	if _, err := regexp.Compile(allBut([]string{strings.Repeat("a", 317), strings.Repeat("b", 253)})); err != nil {
		t.Error(err)
	}
	if _, err := regexp.Compile(allBut([]string{strings.Repeat("a", 2000)})); err == nil {
		t.Error("a key of 2,000 characters compiled: the fallback in ownedMaps is untested")
	}
}
