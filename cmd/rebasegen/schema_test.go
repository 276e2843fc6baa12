package main

import (
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator/emit"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// TestJSONSchemasInREADME: the keys README's `--output json` paragraphs of explain and check
// name are the keys the code writes (the json tags of the structs it encodes, followed into
// nested structs and lists), no more, no fewer.
func TestJSONSchemasInREADME(t *testing.T) {
	data, err := os.ReadFile(readmeFile)
	if err != nil {
		t.Fatal(err)
	}
	for cmd, v := range map[string]any{"explain": emit.ExplainJSON{}, "check": verdict.JSON{}} {
		_, section, _ := strings.Cut(string(data), "\n### `rebasegen "+cmd+"`")
		section, _, _ = strings.Cut(section, "\n### ")
		_, para, ok := strings.Cut(section, "\n`--output json`")
		if !ok {
			t.Errorf("README: the %s section has no `--output json` paragraph", cmd)
			continue
		}
		para, _, _ = strings.Cut(para, "\n\n")
		var documented []string
		for _, m := range regexp.MustCompile(`"(\w+)"`).FindAllStringSubmatch(para, -1) {
			documented = append(documented, m[1])
		}
		slices.Sort(documented)
		documented = slices.Compact(documented)
		written := jsonKeys(reflect.TypeOf(v), map[string]bool{})
		if !slices.Equal(documented, written) {
			t.Errorf("%s --output json: README names %v\nthe code writes %v", cmd, documented, written)
		}
	}
}

// jsonKeys are the json keys of t's fields, of the structs they hold, sorted.
func jsonKeys(t reflect.Type, seen map[string]bool) []string {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() == reflect.Struct {
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" || !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			seen[name] = true
			jsonKeys(f.Type, seen)
		}
	}
	var out []string
	for k := range seen {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
