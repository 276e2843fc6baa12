package verify

// kapp's diff text as rebasegen prints it: masked as kapp deploy --diff-changes masks it, its
// masked values renumbered per diff, a Secret's lines the rules wrote withheld.

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	ctldiff "carvel.dev/kapp/pkg/kapp/diff"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"

	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// maskMu serialises kapp's diff masking: diff.MaskedResource numbers masked values in two
// package-level variables (a map and a counter) without a lock, so concurrent masking is a data
// race and can crash the process with "concurrent map writes".
var maskMu sync.Mutex

// kapp deploy --diff-changes defaults (cmd/tools/diff_flags.go).
var diffViewOpts = ctldiff.TextDiffViewOpts{Context: 2, LineNumbers: true, Mask: true}

// secretAnnotations masks a Secret's annotations in kapp's diff text, beside the data and
// stringData kapp's default diffMaskRules mask: kubectl's last-applied-configuration (and any
// other copy of the applied manifest: kapp.k14s.io/original and its debug diffs) holds the
// Secret's values. kapp masks whole maps (diff.MaskedResource), so every annotation value of a
// Secret is hidden; the keys still show what changed.
var secretAnnotations = ctlconf.DiffMaskRule{
	Path:             ctlres.NewPathFromStrings([]string{"metadata", "annotations"}),
	ResourceMatchers: []ctlconf.ResourceMatcher{{APIVersionKindMatcher: &ctlconf.APIVersionKindMatcher{APIVersion: "v1", Kind: "Secret"}}},
}

// maskRules are the diff mask rules for every kapp diff text rebasegen prints: the Configs' own
// (kapp's defaults mask Secret data and stringData) plus secretAnnotations.
func maskRules(conf ctlconf.Conf) []ctlconf.DiffMaskRule {
	return append(conf.DiffMaskRules(), secretAnnotations)
}

var maskRe = regexp.MustCompile(`(<-- (?:unknown )?value not shown \(#)(\d+)\)`)

// textDiff renders the diff as kapp deploy --diff-changes does. kapp numbers masked values
// process-wide (same value, same number), so the numbers depend on what was masked before; we
// renumber them per diff in order of appearance, which keeps "same number = same value" and makes
// the text deterministic. A Secret's lines that neither the manifest nor the live object holds
// are withheld (secretShownLines).
func textDiff(ch ctldiff.Change, rules []ctlconf.DiffMaskRule) (string, error) {
	var shown map[string]bool
	var shownErr error
	s := func() string {
		maskMu.Lock()
		defer maskMu.Unlock() // also on a kapp panic, or every other worker would hang
		if pairIsSecret(ch) {
			if shown, shownErr = secretShownLines(ch, rules); shownErr != nil {
				return ""
			}
		}
		if text, big, err := bigTextDiff(ch, rules, diffViewOpts); err != nil || big {
			shownErr = err
			return text
		}
		return ctldiff.NewTextDiffView(ch.ConfigurableTextDiff(), rules, diffViewOpts).String()
	}()
	if shownErr != nil {
		return "", shownErr
	}
	if strings.HasPrefix(s, "Error masking diff: ") {
		return "", errors.New(s)
	}
	seen := map[string]string{}
	s = maskRe.ReplaceAllStringFunc(s, func(m string) string {
		parts := maskRe.FindStringSubmatch(m)
		n, ok := seen[parts[2]]
		if !ok {
			n = fmt.Sprint(len(seen) + 1)
			seen[parts[2]] = n
		}
		return parts[1] + n + ")"
	})
	if shown != nil {
		s = withholdSecretLines(s, shown)
	}
	return s, nil
}

// isSecret reports whether res is a core Secret, whose data kapp's default diffMaskRules mask.
func isSecret(res ctlres.Resource) bool {
	return res != nil && res.APIVersion() == "v1" && res.Kind() == "Secret"
}

// pairIsSecret reports whether the change is a Secret's by what the rules cannot rewrite: the
// manifest kapp applies and the live object as read. The rebased object is the rules' output: a
// rule setting its apiVersion or kind made it no Secret, and every line the rule wrote was shown
// (probe9 P9-2).
func pairIsSecret(ch ctldiff.Change) bool {
	return isSecret(ch.AppliedResource()) || isSecret(ch.ClusterOriginalResource())
}

// secretShownLines are the lines of a Secret's diff that may be shown: those of the manifest kapp
// applies (the change's applied resource), of the live object (the resource kapp rebases with)
// and of what kapp last applied (its kapp.k14s.io/original), each masked as the diff is and rendered as kapp renders it, masked values' numbers left
// out. kapp masks a Secret's values, not its keys, nor fields outside data and stringData: a rule
// computing a key, a label or the type from a live value (a ytt rule decoding data.token into a
// data key) put the value into the diff text, in every output format (probe7 D2). A line no
// manifest or live object holds can only come from the rules, so it is not shown. Called with
// maskMu held: masking numbers values process-wide.
func secretShownLines(ch ctldiff.Change, rules []ctlconf.DiffMaskRule) (map[string]bool, error) {
	shown := map[string]bool{}
	trusted := []ctlres.Resource{ch.AppliedResource(), ch.ClusterOriginalResource()}
	if live := ch.ClusterOriginalResource(); live != nil {
		// what kapp last applied: under the last-applied base, kapp diffs against it
		if original, ok := live.Annotations()[kappconv.Original]; ok {
			if res, err := ctlres.NewResourceFromBytes([]byte(original)); err == nil {
				trusted = append(trusted, res)
			}
		}
	}
	for _, res := range trusted {
		if res == nil {
			continue
		}
		masked, err := ctldiff.NewMaskedResource(res, rules).Resource()
		if err != nil {
			return nil, fmt.Errorf("masking %s: %w", res.Description(), err)
		}
		bs, err := masked.AsYAMLBytes()
		if err != nil {
			return nil, fmt.Errorf("rendering %s: %w", res.Description(), err)
		}
		for _, l := range strings.Split(string(bs), "\n") {
			shown[unnumbered(l)] = true
			if k := strings.Index(l, ": "); k >= 0 {
				// the key emptied (a rebased last-applied copy's annotations: {})
				shown[l[:k]+": {}"], shown[l[:k]+": []"] = true, true
			}
			if k, ok := strings.CutSuffix(l, ":"); ok {
				shown[k+": {}"], shown[k+": []"] = true, true
			}
		}
	}
	return shown, nil
}

// unnumbered is a diff line with its masked values' numbers left out.
func unnumbered(line string) string { return maskRe.ReplaceAllString(line, "${1})") }

// diffPrefix is how wide the line numbers and the change mark are before each line of a diff
// text (diffViewOpts: "%3d,%3d " or blanks, then "+ ", "- " or two spaces).
const diffPrefix = 10

// withheldLine stands for a line of a Secret's diff that neither the manifest nor the live object
// holds.
const withheldLine = "<-- line not shown: the rules wrote it into a Secret (neither the manifest nor the live object holds it)"

// withholdSecretLines replaces each line of a Secret's diff text s whose text is not among shown
// with withheldLine, at its indentation.
func withholdSecretLines(s string, shown map[string]bool) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if len(l) < diffPrefix || l == "  ..." {
			continue
		}
		payload := l[diffPrefix:]
		if shown[unnumbered(payload)] {
			continue
		}
		indent := len(payload) - len(strings.TrimLeft(payload, " "))
		lines[i] = l[:diffPrefix] + payload[:indent] + withheldLine
	}
	return strings.Join(lines, "\n")
}
