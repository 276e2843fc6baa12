package emit

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/generator/synth"
	"github.com/rebasegen/rebasegen/internal/escape"
	"github.com/rebasegen/rebasegen/internal/format"
	"github.com/rebasegen/rebasegen/internal/generated"
	"github.com/rebasegen/rebasegen/internal/kappconv"
	"github.com/rebasegen/rebasegen/internal/words"
)

// Format is an output format of generate (format.Rules).
type Format = format.Format

const (
	FormatConfig = format.Config
	FormatYTT    = format.YTT
	FormatSecret = format.Secret
)

// MinimumKappVersion is the oldest kapp that reads and applies the generated rules as the kapp
// they were verified with does (kappconv.KappOldest): not that kapp's own version, which the
// kapp a kapp-controller release bundles may be older than.
const MinimumKappVersion = kappconv.KappOldest

// Header says where the rules came from; it never holds input contents.
type Header struct {
	Version string  // rebasegen version
	Options Options // the inputs and flags: recorded as the command that regenerates the file
}

// WriteRules writes the rules in the format h.Options names.
func WriteRules(w io.Writer, rules []synth.Rule, h Header) error {
	var b strings.Builder
	switch h.Options.Format {
	case FormatConfig, "":
		writeHeader(&b, h)
		if err := writeConfig(&b, rules, nil); err != nil {
			return err
		}
	case FormatYTT:
		if err := checkValueKeys(h.Options.NamespaceValues); err != nil {
			return err
		}
		writeHeader(&b, h)
		nsValues := NamespaceValues(h.Options.NamespaceValues, rules)
		if len(nsValues) > 0 {
			b.WriteString("#@ load(\"@ytt:data\", \"data\")\n")
		}
		if err := writeConfig(&b, rules, nsValues); err != nil {
			return err
		}
	case FormatSecret:
		if h.Options.PackageInstall == "" {
			return fmt.Errorf("--output secret needs --package-install [NAMESPACE/]NAME")
		}
		if err := writeSecret(&b, rules, h); err != nil {
			return err
		}
	default:
		return format.Unknown(string(h.Options.Format), format.Rules())
	}
	_, err := io.WriteString(w, generated.Seal(b.String()))
	return err
}

// comment starts every comment line: "#!" is a ytt comment and a YAML comment alike, and every
// format may end up in a ytt template step (a package's config directory, kapp-controller's
// ytt-paths-from-secret-name), where ytt rejects plain "#" comments.
const comment = "#! "

// shownResources is how many resources a rule's comment names before counting the rest: a rule
// for a fleet matches thousands, and one comment line naming each (1,000 Deployments: 40 KB) is
// unreadable in review.
const shownResources = 5

func resourceNames(ids []pair.Identity) string {
	names := make([]string, words.Shown(len(ids), shownResources))
	for i := range names {
		names[i] = ids[i].String()
	}
	if len(ids) == len(names) {
		return strings.Join(names, ", ")
	}
	// the rest named where the reader can find them: explain lists every resource's fields
	return fmt.Sprintf("%s and %d more (rebasegen explain --group=false lists every resource)", strings.Join(names, ", "), len(ids)-len(names))
}

// classLabels names a rule's classes as reports write them, controller:<manager> for each
// manager owning a field of class Controller.
func classLabels(r synth.Rule) string {
	var labels []string
	for _, c := range r.Classes {
		if c != classify.Controller {
			labels = append(labels, c.Label(""))
			continue
		}
		for _, o := range r.Owners {
			labels = append(labels, c.Label(o))
		}
	}
	return strings.Join(labels, ", ")
}

// writeHeader writes the header (generated.Header); WriteRules seals its digest.
func writeHeader(b *strings.Builder, h Header) {
	b.WriteString(generated.Header(escape.Text(h.Version), escape.Text(strings.Join(h.Options.InputNames(), ", ")), escape.Text(h.Options.Command())))
}

func writeConfig(b *strings.Builder, rules []synth.Rule, nsValues map[string]string) error {
	b.WriteString("apiVersion: " + kappconv.ConfigAPIVersion + "\nkind: " + kappconv.ConfigKind + "\n")
	fmt.Fprintf(b, "minimumRequiredVersion: %s\n", MinimumKappVersion)
	if len(rules) == 0 {
		b.WriteString("rebaseRules: []\n")
		return nil
	}
	written, err := rebaseRules(rules)
	if err != nil {
		return err
	}
	b.WriteString("rebaseRules:\n")
	for _, w := range written {
		for _, line := range w.about {
			b.WriteString(comment + line + "\n")
		}
		if w.rule != nil {
			writeRule(b, *w.rule, nsValues)
		}
	}
	return nil
}

// writeRule writes one rebase rule as a list item; paths and matchers in flow style.
func writeRule(b *strings.Builder, r ctlconf.RebaseRule, nsValues map[string]string) {
	if r.Ytt != nil {
		b.WriteString("- ytt:\n    overlayContractV1:\n      overlay.yml: |\n")
		writeIndented(b, r.Ytt.OverlayContractV1.OverlayYAML, "        ")
	} else {
		fmt.Fprintf(b, "- type: %s\n", r.Type)
		if len(r.Sources) > 0 {
			fmt.Fprintf(b, "  sources: [%s]\n", joinSources(r.Sources))
		}
		b.WriteString("  paths:\n")
		for _, p := range r.Paths {
			fmt.Fprintf(b, "  - [%s]\n", pathText(p))
		}
	}
	b.WriteString("  resourceMatchers:\n")
	for _, m := range r.ResourceMatchers {
		writeMatcher(b, m, nsValues, "  ")
	}
}

// writeMatcher writes one list item of matchers at indent; and/any/not nest in block style.
func writeMatcher(b *strings.Builder, m ctlconf.ResourceMatcher, nsValues map[string]string, indent string) {
	list := func(name string, ms []ctlconf.ResourceMatcher) {
		fmt.Fprintf(b, "%s- %s:\n%s    matchers:\n", indent, name, indent)
		for _, c := range ms {
			writeMatcher(b, c, nsValues, indent+"    ")
		}
	}
	switch {
	case m.AndMatcher != nil:
		list("andMatcher", m.AndMatcher.Matchers)
	case m.AnyMatcher != nil:
		list("anyMatcher", m.AnyMatcher.Matchers)
	case m.EmptyFieldMatcher != nil:
		fmt.Fprintf(b, "%s- emptyFieldMatcher: {path: [%s]}\n", indent, pathText(m.EmptyFieldMatcher.Path))
	case m.NotMatcher != nil:
		fmt.Fprintf(b, "%s- notMatcher:\n%s    matcher:\n", indent, indent)
		var inner strings.Builder
		writeMatcher(&inner, m.NotMatcher.Matcher, nsValues, indent+"    ")
		// one matcher, not a list: the item's "- " becomes indentation
		b.WriteString(strings.Replace(inner.String(), indent+"    - ", indent+"      ", 1))
	default:
		b.WriteString(indent + "- " + strings.ReplaceAll(matcher(m, nsValues), "\n      ", "\n"+indent+"    ") + "\n")
	}
}

// pathText writes a kapp path's parts as a YAML flow list holds them: a map key, {index: N},
// {allIndexes: true} or {regex: ...}.
func pathText(p ctlres.Path) string {
	parts := make([]string, len(p))
	for i, part := range p {
		switch {
		case part.MapKey != nil:
			parts[i] = scalar(*part.MapKey)
		case part.Regex != nil:
			parts[i] = "{regex: " + scalar(*part.Regex.Regex) + "}"
		case part.ArrayIndex.Index != nil:
			parts[i] = fmt.Sprintf("{index: %d}", *part.ArrayIndex.Index)
		default:
			parts[i] = "{allIndexes: true}"
		}
	}
	return strings.Join(parts, ", ")
}

// gate is the emptyFieldMatcher through list items a plain rule's andMatcher ends with, negated
// (synth splits such rules off), or nil.
func gate(ms []synth.Matcher) *synth.EmptyField {
	if len(ms) != 1 || ms[0].And == nil {
		return nil
	}
	last := ms[0].And.Matchers[len(ms[0].And.Matchers)-1]
	if last.Not == nil || last.Not.Matcher.EmptyField == nil ||
		!slices.ContainsFunc(last.Not.Matcher.EmptyField.Path, func(p synth.PathPart) bool { return p.AllIndexes }) {
		return nil
	}
	return last.Not.Matcher.EmptyField
}

// leafMaps reports whether gate e is on the map holding the leaf of every path (synth's gate on a
// map past the last list item, which kapp's copy would otherwise make).
func leafMaps(e synth.EmptyField, paths []fielddiff.Path) bool {
	return len(paths) > 0 && !slices.ContainsFunc(paths, func(p fielddiff.Path) bool { return len(p) != len(e.Path)+1 })
}

// emptyFieldString writes an emptyFieldMatcher's path as reports write paths, [*] for every item.
func emptyFieldString(e synth.EmptyField) string {
	var b strings.Builder
	for i, p := range e.Path {
		if i > 0 && !p.AllIndexes && p.Index == nil {
			b.WriteString(".")
		}
		b.WriteString(p.String())
	}
	return b.String()
}

// oneOf is why a map the copy would make where the manifest lacks it is refused, where e is a
// map of which its parent holds one: a probe's handler, a volume's source; "" for another map,
// where making it is no harm the reader needs named.
func oneOf(e synth.EmptyField) string {
	if len(e.Path) < 2 {
		return ""
	}
	switch parent := e.Path[len(e.Path)-2]; {
	case strings.HasSuffix(parent.Key, "Probe"):
		return " (a probe switched to another handler would get two, which the API server refuses)"
	case parent.AllIndexes && len(e.Path) >= 3 && e.Path[len(e.Path)-3].Key == "volumes":
		return " (a volume switched to another source would get two, which the API server refuses)"
	}
	return ""
}

// yttWhy says why a rule is a ytt rule, which kapp runs for every resource it matches, under each
// base, on every deploy, rather than a plain copy, which costs kapp next to nothing.
func yttWhy(r synth.Rule) string {
	var why []string
	if r.ByKey != "" {
		why = append(why, r.ByKey)
	} else if len(r.Keyed)+len(r.Nulls) > 0 {
		why = append(why, "a whole list item is no kapp copy path")
	}
	if len(r.Items) > 0 {
		why = append(why, "the server's default depends on the item's own fields, and a copy by index gives an item another item's once Git inserts, removes or reorders items of a list without merge keys: this copies only into the item the live object holds as the manifest declares it")
	}
	if len(r.Rewrites) > 0 {
		why = append(why, "a copy cannot replace a value only where it is exactly the one the server rewrote")
	}
	if r.FoldStringData {
		why = append(why, "a copy cannot move stringData into data, base64-encoded")
	}
	return strings.Join(why, "; ")
}

// shown writes a rewritten value as in the rule's description: a string as it is ("" spelled
// out), anything else as JSON (null, a map or list as the manifest could write it, not Go's
// map[...] syntax).
func shown(v any) string {
	if s, ok := v.(string); ok && s != "" {
		return s
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) == nil {
		return strings.TrimSuffix(b.String(), "\n")
	}
	return fmt.Sprint(v)
}

func matcher(m ctlconf.ResourceMatcher, nsValues map[string]string) string {
	switch {
	case m.APIVersionKindMatcher != nil:
		return fmt.Sprintf("apiVersionKindMatcher: {apiVersion: %s, kind: %s}", scalar(m.APIVersionKindMatcher.APIVersion), scalar(m.APIVersionKindMatcher.Kind))
	case m.APIGroupKindMatcher != nil:
		return fmt.Sprintf("apiGroupKindMatcher: {apiGroup: %s, kind: %s}", scalar(m.APIGroupKindMatcher.APIGroup), scalar(m.APIGroupKindMatcher.Kind))
	case m.HasAnnotationMatcher != nil:
		return fmt.Sprintf("hasAnnotationMatcher: {keys: [%s]}", scalars(m.HasAnnotationMatcher.Keys))
	case m.HasNamespaceMatcher != nil:
		// synth.VersionedName's: one namespace, following its data value as namespace does
		if names := m.HasNamespaceMatcher.Names; len(names) == 1 && nsValues[names[0]] != "" {
			return fmt.Sprintf("hasNamespaceMatcher:\n      names:\n      - #@ data.values.%s", nsValues[names[0]])
		}
		return fmt.Sprintf("hasNamespaceMatcher: {names: [%s]}", scalars(m.HasNamespaceMatcher.Names))
	}
	k := m.KindNamespaceNameMatcher
	if key, ok := nsValues[k.Namespace]; ok {
		// a ytt annotation on the namespace node: the rule follows the install namespace
		return fmt.Sprintf("kindNamespaceNameMatcher:\n      kind: %s\n      namespace: #@ data.values.%s\n      name: %s", scalar(k.Kind), key, scalar(k.Name))
	}
	return fmt.Sprintf("kindNamespaceNameMatcher: {kind: %s, namespace: %s, name: %s}", scalar(k.Kind), scalar(k.Namespace), scalar(k.Name))
}

func writeSecret(b *strings.Builder, rules []synth.Rule, h Header) error {
	// one install's rules: they name its own resources (synth.OwnResources)
	rules = synth.OwnResources(rules, synth.Ruled(rules))
	var cfg strings.Builder
	writeHeader(&cfg, h)
	if err := writeConfig(&cfg, rules, nil); err != nil {
		return err
	}
	ns, pi := PackageInstallRef(h.Options.PackageInstall)
	if ns == "" {
		ns = h.Options.Namespace
	}
	if ns == "" {
		// "default" would be a guess: kapp-controller reads the Secret only in the PackageInstall's
		// namespace, and neither -n nor a live object of a manifest without a namespace tells it
		return fmt.Errorf("--package-install %s: the PackageInstall's namespace is not known (no -n, and no manifest leaves its namespace to the install): give --package-install NAMESPACE/%[1]s", escape.Text(pi))
	}
	name := pi + "-rebase-rules"
	fmt.Fprintf(b, comment+"Rebase rules for the PackageInstall %s: apply this Secret, then annotate the PackageInstall:\n", escape.Text(pi))
	// quoted for the shell it is pasted into: the names are not validated here
	fmt.Fprintf(b, comment+"  kubectl annotate packageinstall %s -n %s %s\n", escape.Text(shellQuote(pi)), escape.Text(shellQuote(ns)),
		escape.Text(shellQuote(kappconv.YTTPathsFromSecret+".0="+name)))
	b.WriteString(comment + "kapp-controller adds the Secret's files to the package's first ytt template step.\n")
	fmt.Fprintf(b, "apiVersion: v1\nkind: Secret\nmetadata:\n  name: %s\n  namespace: %s\nstringData:\n  rebase-rules.yml: |\n", scalar(name), scalar(ns))
	// the digest is the body's, the rules file kapp-controller's ytt step reads: a Secret
	// serialised again (stringData quoted, data base64-encoded) keeps it (generated.ReadSecret)
	writeIndented(b, generated.Seal(cfg.String()), "    ")
	return nil
}

// scalars writes strings as a YAML flow list holds them.
func scalars(ss []string) string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = scalar(s)
	}
	return strings.Join(out, ", ")
}

// joinSources writes a copy rule's sources as kapp's YAML flow list holds them.
func joinSources(srcs []ctlres.FieldCopyModSource) string {
	out := make([]string, len(srcs))
	for i, s := range srcs {
		out[i] = string(s)
	}
	return strings.Join(out, ", ")
}
