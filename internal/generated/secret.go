package generated

import (
	"bytes"
	"encoding/base64"
	"errors"
	"io"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// Secret is a rules Secret (the Secret format) as kapp-controller reads it, whatever its
// formatting: the body rebasegen wrote into one of its keys, and every key's value.
type Secret struct {
	Name, Namespace string
	Key             string // the key holding the body
	Body            string // the rules file the key holds, header first
	Line            int    // the key's line in the file
	// Keys are every data and stringData key, data's decoded (Encoded: it was not UTF-8 text and
	// stays base64), in the file's order.
	Keys []SecretKey
}

// SecretKey is one key of a Secret and its value.
type SecretKey struct {
	Name, Value string
	Encoded     bool
}

// b64Marker is how the marker starts base64-encoded at the start of a value (data's form).
var b64Marker = []byte(base64.StdEncoding.EncodeToString([]byte(marker))[:len(marker)/3*4])

// ReadSecret reads data as a Secret one of whose keys holds a file bearing the header, in any form
// kapp-controller reads: stringData as a block or a quoted string, data base64-encoded, YAML or
// JSON, comments above it or none. false when data is not one such Secret.
func ReadSecret(data []byte) (Secret, bool) {
	// most files are no Secret of rebasegen's: they are not parsed
	if !bytes.Contains(data, []byte("Secret")) || !bytes.Contains(data, []byte(marker[3:])) && !bytes.Contains(data, b64Marker) {
		return Secret{}, false
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var found *yaml.Node
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Secret{}, false
		}
		if len(doc.Content) == 0 || doc.Content[0].Kind == yaml.ScalarNode && doc.Content[0].Tag == "!!null" {
			continue
		}
		if found != nil {
			return Secret{}, false // one Secret per file, as rebasegen writes it
		}
		found = doc.Content[0]
	}
	if found == nil || found.Kind != yaml.MappingNode || value(found, "kind") == nil || value(found, "kind").Value != "Secret" {
		return Secret{}, false
	}
	s := Secret{}
	if md := value(found, "metadata"); md != nil && md.Kind == yaml.MappingNode {
		if n := value(md, "name"); n != nil {
			s.Name = n.Value
		}
		if n := value(md, "namespace"); n != nil {
			s.Namespace = n.Value
		}
	}
	for _, field := range []string{"stringData", "data"} {
		m := value(found, field)
		if m == nil || m.Kind != yaml.MappingNode {
			continue
		}
		for i := 0; i+1 < len(m.Content); i += 2 {
			k, v := m.Content[i], m.Content[i+1]
			key := SecretKey{Name: k.Value, Value: v.Value}
			if field == "data" {
				if b, err := base64.StdEncoding.DecodeString(v.Value); err == nil && utf8.Valid(b) {
					key.Value = string(b)
				} else {
					key.Encoded = true
				}
			}
			s.Keys = append(s.Keys, key)
			if s.Key == "" && !key.Encoded && ofText([]byte(key.Value), marker) != None {
				s.Key, s.Body, s.Line = key.Name, key.Value, k.Line
			}
		}
	}
	if s.Key == "" {
		return Secret{}, false
	}
	return s, true
}

// value is the value of key in mapping m; nil when it has none.
func value(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// Canonical is the Secret as rebasegen writes it, without the comments above it: every key in
// stringData, as a block (an Encoded key stays in data). Two Secrets kapp-controller reads alike
// are canonically the same text, whatever formatting either was given.
func (s Secret) Canonical() string {
	str := func(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v} }
	block := func(v string) *yaml.Node {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v, Style: yaml.LiteralStyle}
	}
	md := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{str("name"), str(s.Name), str("namespace"), str(s.Namespace)}}
	root := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{str("apiVersion"), str("v1"), str("kind"), str("Secret"), str("metadata"), md}}
	stringData, data := &yaml.Node{Kind: yaml.MappingNode}, &yaml.Node{Kind: yaml.MappingNode}
	for _, k := range s.Keys {
		if k.Encoded {
			data.Content = append(data.Content, str(k.Name), str(k.Value))
			continue
		}
		stringData.Content = append(stringData.Content, str(k.Name), block(k.Value))
	}
	if len(stringData.Content) > 0 {
		root.Content = append(root.Content, str("stringData"), stringData)
	}
	if len(data.Content) > 0 {
		root.Content = append(root.Content, str("data"), data)
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		return "" // a tree of strings always encodes
	}
	return b.String()
}
