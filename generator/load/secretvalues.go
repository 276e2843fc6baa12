package load

import (
	"encoding/base64"
	"encoding/json"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// SecretValues are the values of a Secret's data (base64 as written, and decoded) and stringData,
// each also as JSON quotes it; none for other kinds.
func SecretValues(u *unstructured.Unstructured) []string {
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
