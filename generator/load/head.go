package load

import (
	"bytes"
	"unicode/utf8"

	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// headDoc is parseDoc's reading of js, a document's JSON, for the common case: one object,
// nested no deeper than MaxDepth, not a List. It decodes only what checkObject and newDoc read
// (apiVersion, kind, metadata's name, namespace, labels, uid and resourceVersion, whether
// managedFields has entries, and data when the labels make it a kapp Config), into a map holding
// those alone, and passes every other value over unread. ok is false for any other document, and
// for JSON it does not expect (a key written with an escape): fullDoc reads those.
//
// Performance: every document was decoded whole here, to be decoded again whole when a stage
// works on it, and that was most of loading's garbage. Passing over a value only finds where it
// ends; js is what json.Marshal wrote (toJSON), so valid JSON.
func headDoc(js []byte, src Source, dicts *dictionaries) (_ []Doc, ok bool, _ error) {
	if len(js) == 0 || js[0] != '{' {
		return nil, false, nil
	}
	raw := map[string][]byte{}
	depth, ok := members(js, func(key string, val []byte) {
		switch key {
		case "apiVersion", "kind", "metadata", "data", "items":
			raw[key] = val
		}
	})
	if !ok || 1+depth > MaxDepth || raw["items"] != nil {
		return nil, false, nil
	}
	m := map[string]any{}
	for _, k := range []string{"apiVersion", "kind"} {
		if v, ok := raw[k]; ok {
			if m[k], ok = decode(v); !ok {
				return nil, false, nil
			}
		}
	}
	managed := false
	if v, ok := raw["metadata"]; ok {
		if v[0] != '{' {
			if m["metadata"], ok = decode(v); !ok {
				return nil, false, nil
			}
		} else {
			meta := map[string]any{}
			failed := false
			_, ok := members(v, func(key string, val []byte) {
				switch key {
				case "name", "namespace", "labels", "uid", "resourceVersion":
					var ok bool
					if meta[key], ok = decode(val); !ok {
						failed = true
					}
				case "managedFields":
					managed = val[0] == '[' && val[space(val, 1)] != ']'
				}
			})
			if !ok || failed {
				return nil, false, nil
			}
			m["metadata"] = meta
			if labels, _ := meta["labels"].(map[string]any); labels != nil {
				if _, labelled := labels[kappconv.ConfigLabel]; labelled && raw["data"] != nil {
					if m["data"], ok = decode(raw["data"]); !ok {
						return nil, false, nil
					}
				}
			}
		}
	}
	if err := checkObject(m, src, len(js)); err != nil {
		return nil, true, err
	}
	return []Doc{newDoc(js, m, managed, src, dicts)}, true, nil
}

// decode decodes one JSON value as fullDoc does. A string without escapes, control characters
// or invalid UTF-8 is its bytes (performance: the decoder's set-up for each of a document's
// names was most of headDoc's allocations).
func decode(js []byte) (any, bool) {
	if n := len(js); n >= 2 && js[0] == '"' && js[n-1] == '"' && plain(js[1:n-1]) {
		return string(js[1 : n-1]), true
	}
	var v any
	return v, utiljson.Unmarshal(js, &v) == nil
}

// plain reports whether a JSON string's content (between its quotes, as skipString delimits
// it) decodes to itself: no escape, no control character, valid UTF-8.
func plain(b []byte) bool {
	for _, c := range b {
		if c == '\\' || c == '"' || c < 0x20 {
			return false
		}
	}
	return utf8.Valid(b)
}

// members calls f with each key of the JSON object obj (obj[0] is '{') and its value, in order,
// and returns how deeply maps and lists nest within the values (0: none is one). ok is false
// when obj is not one object, or a key holds an escape.
func members(obj []byte, f func(key string, val []byte)) (depth int, ok bool) {
	i := space(obj, 1)
	if i < len(obj) && obj[i] == '}' {
		return 0, space(obj, i+1) == len(obj)
	}
	for i < len(obj) {
		if obj[i] != '"' {
			return 0, false
		}
		end, ok := skipString(obj, i)
		if !ok || bytes.IndexByte(obj[i+1:end-1], '\\') >= 0 {
			return 0, false
		}
		key := obj[i+1 : end-1]
		if i = space(obj, end); i >= len(obj) || obj[i] != ':' {
			return 0, false
		}
		start := space(obj, i+1)
		end, d, ok := skipValue(obj, start)
		if !ok {
			return 0, false
		}
		f(string(key), obj[start:end])
		depth = max(depth, d)
		if i = space(obj, end); i >= len(obj) {
			return 0, false
		}
		switch obj[i] {
		case ',':
			i = space(obj, i+1)
		case '}':
			return depth, space(obj, i+1) == len(obj)
		default:
			return 0, false
		}
	}
	return 0, false
}

// skipValue returns the end of the JSON value starting at js[i], and how many maps and lists are
// open at once at most within it, itself included.
func skipValue(js []byte, i int) (end, depth int, ok bool) {
	if i >= len(js) {
		return 0, 0, false
	}
	switch js[i] {
	case '"':
		end, ok := skipString(js, i)
		return end, 0, ok
	case '{', '[':
		open := 0
		for j := i; j < len(js); j++ {
			switch js[j] {
			case '"':
				end, ok := skipString(js, j)
				if !ok {
					return 0, 0, false
				}
				j = end - 1
			case '{', '[':
				open++
				depth = max(depth, open)
			case '}', ']':
				if open--; open == 0 {
					return j + 1, depth, true
				}
			}
		}
		return 0, 0, false
	}
	j := i // a number, true, false or null
	for j < len(js) && bytes.IndexByte([]byte(",}] \t\r\n"), js[j]) < 0 {
		j++
	}
	return j, 0, j > i
}

// skipString returns the end of the JSON string starting at js[i] (a '"').
func skipString(js []byte, i int) (end int, ok bool) {
	for j := i + 1; j < len(js); j++ {
		q := bytes.IndexByte(js[j:], '"')
		if q < 0 {
			return 0, false
		}
		j += q
		escapes := 0
		for k := j - 1; k > i && js[k] == '\\'; k-- {
			escapes++
		}
		if escapes%2 == 0 {
			return j + 1, true
		}
	}
	return 0, false
}

// space returns the index of the first byte at or after i that is not JSON white space.
func space(js []byte, i int) int {
	for i < len(js) && (js[i] == ' ' || js[i] == '\t' || js[i] == '\r' || js[i] == '\n') {
		i++
	}
	return i
}
