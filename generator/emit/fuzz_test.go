package emit

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/value"
	"sigs.k8s.io/yaml"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/generator/synth"
	"github.com/rebasegen/rebasegen/internal/kappglobal"
	"github.com/rebasegen/rebasegen/internal/ytttest"
)

// FuzzRulesRoundTrip: rules synthesized from arbitrary names, paths and values are written as a
// kapp Config that kapp's own config parser reads back as exactly those rules (and whose mods
// it can build), and the ytt format, rendered with the ytt library, is the same document.
func FuzzRulesRoundTrip(f *testing.F) {
	// Seeds: the resources and paths of the captured fixtures.
	fixtureSeeds(f)
	f.Add("apps/v1", "Deployment", "ns", "web", "spec.replicas", "spec.template.spec.dnsPolicy", "web", uint8(2), uint8(0), "", "", "in.yaml")
	f.Add("v1", "Service", "a: b", "#@ x", "spec.ports", "protocol", "http", uint8(0), uint8(1), "", "", "a\nb")
	f.Add("v1", "Secret", "yes", "no", "stringData", "x", "k", uint8(1), uint8(4), "", "", "")
	f.Add("v1", "Pod", "ns", "p", "spec.containers", "resources.limits.cpu", "c", uint8(0), uint8(3), "0.5", "500m", "")
	f.Add("x.example.com/v1", "W", "", "w", "spec.m", "", "", uint8(1), uint8(2), "", "", "")
	// found by fuzzing: an input file name that is not UTF-8, or holds DEL, C1 controls or line
	// separators, made the output unreadable YAML
	f.Add("apps/v1", "Deployment", "ns", "web", "spec.replicas", "", "web", uint8(2), uint8(0), "", "", "\xf7\xfe.yaml")
	f.Add("apps/v1", "Deployment", "ns", "web", "spec.replicas", "", "web", uint8(2), uint8(0), "", "", "a\x7fb\u0085c\u2028d\u0090\uffff.yaml")

	f.Fuzz(func(t *testing.T, apiVersion, kind, ns, name, path1, path2, key string, class, shape uint8, from, to, input string) {
		if kind == "" || name == "" || apiVersion == "" {
			return // not a resource: rejected by the loader
		}
		for _, s := range []string{apiVersion, kind, ns, name, path1, path2, key, from, to} {
			if !utf8.ValidString(s) || !yamlPrintable(s) {
				// The loader rejects documents that are not UTF-8, and kapp cannot read a Config
				// holding characters YAML does not print, however escaped: it re-encodes its
				// resources through JSON, which leaves them raw (no Kubernetes name holds them).
				// input (a file name, only written in comments) may be anything.
				return
			}
		}
		rep := report(apiVersion, kind, ns, name, path1, path2, key, class, shape, from, to)
		res := synth.Synthesize(rep, synth.Options{})
		if len(res.Rules) == 0 {
			return
		}
		var cfg bytes.Buffer
		h := Header{Version: "fuzz", Options: Options{Desired: []string{input}}}
		if err := WriteRules(&cfg, res.Rules, h); err != nil {
			t.Fatal(err)
		}
		parsed := parseConfig(t, cfg.Bytes())
		if len(parsed.RebaseRules) != len(res.Rules) {
			t.Fatalf("%d rules written, kapp reads %d:\n%s", len(res.Rules), len(parsed.RebaseRules), cfg.String())
		}
		for i, r := range res.Rules {
			if err := sameRule(r, parsed.RebaseRules[i]); err != nil {
				t.Fatalf("rule %d: %v\n%s", i, err, cfg.String())
			}
		}

		var tpl bytes.Buffer
		h.Options.Format, h.Options.NamespaceValues = FormatYTT, []string{"ns"} // the report's one namespace
		if err := WriteRules(&tpl, res.Rules, h); err != nil {
			t.Fatal(err)
		}
		rendered, err := ytttest.Render(tpl.String(), ns, false)
		if err != nil {
			t.Fatalf("ytt rejects the ytt format: %v\n%s", err, tpl.String())
		}
		var want, got map[string]any
		if err := yaml.Unmarshal(cfg.Bytes(), &want); err != nil {
			t.Fatal(err)
		}
		if err := yaml.Unmarshal([]byte(rendered), &got); err != nil {
			t.Fatalf("ytt output does not parse: %v\n%s", err, rendered)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("the ytt format renders to other rules:\n%s\nconfig format:\n%s", rendered, cfg.String())
		}
	})
}

// report is one or two resources of a kind with findings shaped by shape: plain map paths,
// a path through a keyed list item, an empty map, a canonical value rewrite or a Secret's
// stringData; of class defaulted, calculated or controller-owned.
func report(apiVersion, kind, ns, name, path1, path2, key string, class, shape uint8, from, to string) *classify.Report {
	fields := func(p string) fielddiff.Path { return fielddiff.FromFields(strings.Split(p, ".")) }
	cls := []classify.Class{classify.Defaulted, classify.Calculated, classify.Controller}[int(class)%3]
	var fs []classify.Finding
	add := func(p fielddiff.Path, ch fielddiff.Change, d, l any) {
		f := classify.Finding{Path: p, Change: ch, Class: cls, Desired: d, Live: l, Evidence: "fuzz " + path1}
		if cls == classify.Controller {
			f.Owner = "fuzz-controller"
		}
		fs = append(fs, f)
	}
	switch shape % 5 {
	case 0:
		add(fields(path1), fielddiff.Added, nil, "x")
		add(fields(path2), fielddiff.Added, nil, int64(1))
	case 1:
		p := append(fields(path1), fieldpath.PathElement{Key: &value.FieldList{{Name: "name", Value: value.NewValueInterface(key)}}})
		add(append(p, fields(path2)...), fielddiff.Added, nil, "x")
	case 2:
		add(fields(path1), fielddiff.Added, nil, map[string]any{})
	case 3:
		add(fields(path1), fielddiff.Canonical, from, to)
	case 4:
		kind, apiVersion = "Secret", "v1"
		add(fields("stringData"), fielddiff.Removed, map[string]any{key: from}, nil)
	}
	group := ""
	if i := strings.Index(apiVersion, "/"); i >= 0 {
		group = apiVersion[:i]
	}
	rep := &classify.Report{}
	for _, n := range []string{name, name + "-2"} {
		rep.Resources = append(rep.Resources, classify.Resource{Pair: pair.Pair{ID: pair.Identity{Group: group, Kind: kind, Namespace: ns, Name: n},
			Desired: load.Doc{APIVersion: apiVersion, Kind: kind}}, Findings: fs})
	}
	return rep
}

func parseConfig(t *testing.T, data []byte) ctlconf.Config {
	t.Helper()
	rs, err := ctlres.NewResourcesFromBytes(data)
	if err != nil || len(rs) != 1 {
		t.Fatalf("kapp does not read the Config as one resource (%d): %v\n%s", len(rs), err, data)
	}
	kappglobal.Prepare() // a real kapp version for minimumRequiredVersion
	_, conf, err := ctlconf.NewConfFromResources(rs)
	if err != nil {
		t.Fatalf("kapp's config parser rejects the Config: %v\n%s", err, data)
	}
	func() {
		defer func() {
			if p := recover(); p != nil {
				t.Fatalf("kapp panics building the rules' mods: %v\n%s", p, data)
			}
		}()
		conf.RebaseMods()
	}()
	cfg, err := ctlconf.NewConfigFromResource(rs[0])
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func sameRule(r synth.Rule, k ctlconf.RebaseRule) error {
	if r.YTT() {
		if k.Ytt == nil || k.Ytt.OverlayContractV1 == nil || !strings.Contains(k.Ytt.OverlayContractV1.OverlayYAML, `load("@ytt:overlay", "overlay")`) {
			return fmt.Errorf("ytt rule read back as %+v", k)
		}
	} else {
		if k.Type != "copy" || fmt.Sprint(k.Sources) != fmt.Sprint(r.Sources) || k.Path != nil {
			return fmt.Errorf("copy rule %v %v read back as %s %v %d paths", r.Sources, r.Paths, k.Type, k.Sources, len(k.Paths))
		}
		// Sibling keys come back as one path ending in a regex part: expand it into the written
		// paths it matches; every written path must come back exactly once.
		var got []string
		for _, p := range k.Paths {
			var parent []string
			for _, part := range p[:len(p)-1] {
				if part.MapKey == nil {
					return fmt.Errorf("path %v read back with a non-key part", p.AsString())
				}
				parent = append(parent, *part.MapKey)
			}
			last := p[len(p)-1]
			switch {
			case last.MapKey != nil:
				got = append(got, fmt.Sprintf("%q", append(parent, *last.MapKey)))
			case last.Regex != nil:
				re := regexp.MustCompile(*last.Regex.Regex)
				for _, w := range r.Paths {
					if len(w) == len(p) && slices.Equal(w[:len(w)-1], parent) && re.MatchString(w[len(w)-1]) {
						got = append(got, fmt.Sprintf("%q", w))
					}
				}
			default:
				return fmt.Errorf("path %v read back with a non-key part", p.AsString())
			}
		}
		var want []string
		for _, w := range r.Paths {
			want = append(want, fmt.Sprintf("%q", w))
		}
		sort.Strings(got)
		sort.Strings(want)
		if !reflect.DeepEqual(got, want) {
			return fmt.Errorf("paths %q read back as %q", want, got)
		}
	}
	if len(k.ResourceMatchers) != len(r.Matchers) {
		return fmt.Errorf("%d matchers read back as %d", len(r.Matchers), len(k.ResourceMatchers))
	}
	for i, m := range r.Matchers {
		if err := sameMatcher(m, k.ResourceMatchers[i]); err != nil {
			return fmt.Errorf("matcher %d: %w", i, err)
		}
	}
	return nil
}

// sameMatcher compares a matcher with what kapp read back, nested and/any/not matchers included.
func sameMatcher(m synth.Matcher, km ctlconf.ResourceMatcher) error {
	var got, want [3]string
	switch {
	case m.APIVersionKind != nil && km.APIVersionKindMatcher != nil:
		want = [3]string{m.APIVersionKind.APIVersion, m.APIVersionKind.Kind}
		got = [3]string{km.APIVersionKindMatcher.APIVersion, km.APIVersionKindMatcher.Kind}
	case m.APIGroupKind != nil && km.APIGroupKindMatcher != nil:
		want = [3]string{m.APIGroupKind.APIGroup, m.APIGroupKind.Kind}
		got = [3]string{km.APIGroupKindMatcher.APIGroup, km.APIGroupKindMatcher.Kind}
	case m.KindNamespaceName != nil && km.KindNamespaceNameMatcher != nil:
		want = [3]string{m.KindNamespaceName.Kind, m.KindNamespaceName.Namespace, m.KindNamespaceName.Name}
		got = [3]string{km.KindNamespaceNameMatcher.Kind, km.KindNamespaceNameMatcher.Namespace, km.KindNamespaceNameMatcher.Name}
	case m.EmptyField != nil && km.EmptyFieldMatcher != nil:
		want[0] = fmt.Sprintf("%q", m.EmptyField.Path)
		var parts []string
		for _, p := range km.EmptyFieldMatcher.Path {
			switch {
			case p.MapKey != nil:
				parts = append(parts, *p.MapKey)
			case p.ArrayIndex != nil && p.ArrayIndex.Index != nil:
				parts = append(parts, fmt.Sprintf("[%d]", *p.ArrayIndex.Index))
			default:
				return fmt.Errorf("emptyFieldMatcher path %s read back with a part that is no map key or index", km.EmptyFieldMatcher.Path.AsString())
			}
		}
		got[0] = fmt.Sprintf("%q", parts)
	case m.Not != nil && km.NotMatcher != nil:
		return sameMatcher(m.Not.Matcher, km.NotMatcher.Matcher)
	case m.And != nil && km.AndMatcher != nil:
		return sameMatchers(m.And.Matchers, km.AndMatcher.Matchers)
	case m.Any != nil && km.AnyMatcher != nil:
		return sameMatchers(m.Any.Matchers, km.AnyMatcher.Matchers)
	default:
		return fmt.Errorf("read back as another kind of matcher: %+v", km)
	}
	if got != want {
		return fmt.Errorf("%q read back as %q", want, got)
	}
	return nil
}

func sameMatchers(ms []synth.Matcher, kms []ctlconf.ResourceMatcher) error {
	if len(ms) != len(kms) {
		return fmt.Errorf("%d nested matchers read back as %d", len(ms), len(kms))
	}
	for i := range ms {
		if err := sameMatcher(ms[i], kms[i]); err != nil {
			return err
		}
	}
	return nil
}

var fixtureField = regexp.MustCompile(`(?m)^- resource: (\S+)/(\S+) (?:(\S+)/)?(\S+)\n  path: '?([^'\n]+)`)

// fixtureSeeds adds the resources and field paths the captured scenarios list.
func fixtureSeeds(f *testing.F) {
	paths, err := filepath.Glob("../../fixtures/*/scenario.yaml")
	if err != nil || len(paths) == 0 {
		f.Fatalf("no fixtures (%v)", err)
	}
	for i, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		for j, m := range fixtureField.FindAllStringSubmatch(string(data), 4) {
			group, kind, ns, name, path := m[1], m[2], m[3], m[4], m[5]
			apiVersion := group + "/v1"
			if group == "core" {
				apiVersion = "v1"
			}
			first, rest, _ := strings.Cut(strings.NewReplacer("[", ".", "]", "").Replace(path), ".")
			f.Add(apiVersion, kind, ns, name, first, rest, name, uint8(i+j), uint8(j), "", "", filepath.Dir(p))
		}
	}
}

// yamlPrintable reports whether YAML's reader accepts every character of s (go-yaml:
// "control characters are not allowed") and none is a line break YAML folds inside a quoted
// scalar that JSON leaves raw (NEL, LS, PS).
func yamlPrintable(s string) bool {
	for _, r := range s {
		switch {
		case r == 0x85 || r == 0x2028 || r == 0x2029:
			return false
		case r == 0x09 || r == 0x0A || r == 0x0D:
		case r >= 0x20 && r <= 0x7E, r >= 0xA0 && r <= 0xD7FF, r >= 0xE000 && r <= 0xFFFD, r >= 0x10000 && r <= 0x10FFFF:
		default:
			return false
		}
	}
	return true
}
