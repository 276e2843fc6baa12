package verify

import (
	"errors"
	"regexp"
	"slices"
	"strings"

	"github.com/rebasegen/rebasegen/generator/load"
)

// redactedValue stands for a Secret's value in an error message.
const redactedValue = "<redacted>"

// withoutSecretValues is err with every value of the pair's Secrets (data as written and
// decoded, stringData) replaced: kapp's and ytt's messages quote what a rule ran on (a ytt rule's
// fail() may print data.values.existing), and Secret values never appear in rebasegen's output.
func withoutSecretValues(err error, p Pair) error {
	if err == nil {
		return nil
	}
	values := slices.Concat(load.SecretValues(p.Desired), load.SecretValues(p.Live))
	if len(values) == 0 {
		return err
	}
	// longest first: a value holding another is replaced whole
	slices.SortFunc(values, func(a, b string) int { return len(b) - len(a) })
	msg := err.Error()
	for _, v := range slices.Compact(values) {
		if len(v) >= 4 {
			msg = strings.ReplaceAll(msg, v, redactedValue)
			continue
		}
		// a short value replaced wherever it occurs would garble the message: as a word only
		msg = regexp.MustCompile(`\b`+regexp.QuoteMeta(v)+`\b`).ReplaceAllString(msg, redactedValue)
	}
	if msg == err.Error() {
		return err
	}
	return errors.New(msg)
}
