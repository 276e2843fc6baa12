package verify

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"regexp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
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
	values := slices.Concat(secretValues(p.Desired), secretValues(p.Live))
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

// secretValues are the values of a Secret's data (base64 as written, and decoded) and stringData,
// each also as JSON quotes it; none for other kinds.
func secretValues(u *unstructured.Unstructured) []string {
	if u == nil || u.GetKind() != "Secret" || u.GroupVersionKind().Group != "" {
		return nil
	}
	var out []string
	add := func(v string) {
		if v == "" {
			return
		}
		out = append(out, v)
		if q, err := json.Marshal(v); err == nil && string(q[1:len(q)-1]) != v {
			out = append(out, string(q[1:len(q)-1]))
		}
	}
	for _, field := range []string{"data", "stringData"} {
		m, _ := u.Object[field].(map[string]any)
		for _, v := range m {
			s, ok := v.(string)
			if !ok {
				continue
			}
			add(s)
			if field == "data" {
				if b, err := base64.StdEncoding.DecodeString(s); err == nil {
					add(string(b))
				}
			}
		}
	}
	return out
}
