package emit

import (
	"fmt"
	"io"
	"slices"
	"strings"

	ctlres "carvel.dev/kapp/pkg/kapp/resources"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/generator/synth"
	"github.com/rebasegen/rebasegen/internal/escape"
	"github.com/rebasegen/rebasegen/internal/format"
	"github.com/rebasegen/rebasegen/internal/generated"
	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// Format is an output format of generate (format.Rules).
type Format = format.Format

const (
	FormatConfig = format.Config
	FormatYTT    = format.YTT
	FormatSecret = format.Secret
)

// MinimumKappVersion is the kapp version the generated rules were verified with and need:
// `paths` and ytt rebase rules are read by it as rebasegen writes them.
const MinimumKappVersion = kappconv.Kapp

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
		writeConfig(&b, rules, nil)
	case FormatYTT:
		if err := checkValueKeys(h.Options.NamespaceValues); err != nil {
			return err
		}
		writeHeader(&b, h)
		nsValues := NamespaceValues(h.Options.NamespaceValues, rules)
		if len(nsValues) > 0 {
			b.WriteString("#@ load(\"@ytt:data\", \"data\")\n")
		}
		writeConfig(&b, rules, nsValues)
	case FormatSecret:
		if h.Options.PackageInstall == "" {
			return fmt.Errorf("--output secret needs --package-install [NAMESPACE/]NAME")
		}
		writeSecret(&b, rules, h)
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
	names := make([]string, min(len(ids), shownResources))
	for i := range names {
		names[i] = ids[i].String()
	}
	if len(ids) <= shownResources {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names, ", "), len(ids)-shownResources)
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

func writeConfig(b *strings.Builder, rules []synth.Rule, nsValues map[string]string) {
	b.WriteString("apiVersion: " + kappconv.ConfigAPIVersion + "\nkind: " + kappconv.ConfigKind + "\n")
	fmt.Fprintf(b, "minimumRequiredVersion: %s\n", MinimumKappVersion)
	if len(rules) == 0 {
		b.WriteString("rebaseRules: []\n")
		return
	}
	b.WriteString("rebaseRules:\n")
	for _, r := range rules {
		if r.YTT() {
			for _, p := range r.Parts() { // each rule of the one ytt evaluation says what it rewrites and why
				writeAbout(b, p)
				fmt.Fprintf(b, "%s  ytt rule: %s\n", comment, escape.Text(pathList(p)))
				fmt.Fprintf(b, "%s  not a plain copy: %s\n", comment, escape.Text(yttWhy(p)))
			}
			if len(r.Also) > 0 {
				fmt.Fprintf(b, "%s  the %d ytt rules above run as one: kapp evaluates a ytt rule once for every resource it matches, under each base\n", comment, len(r.Also)+1)
			}
			b.WriteString("- ytt:\n    overlayContractV1:\n      overlay.yml: |\n")
			writeIndented(b, overlay(r), "        ")
		} else if r.Drop != nil {
			writeAbout(b, r)
			fmt.Fprintf(b, "%s  remove rule: %s, an empty value the server does not store, only while the manifest's value is empty (emptyFieldMatcher): a value declared in Git is still shown\n", comment, escape.Text(r.Drop.String()))
			parts := synth.KappPath(r.Drop)
			written := make([]string, len(parts))
			for i, p := range parts {
				written[i] = kappPart(p)
			}
			fmt.Fprintf(b, "- type: remove\n  paths:\n  - [%s]\n", strings.Join(written, ", "))
		} else {
			writeAbout(b, r)
			for _, m := range r.Owned {
				writeOwned(b, m, r.ControllerWins(), r.Matchers, nsValues)
			}
			if len(r.Paths)+len(r.Indexed) == 0 {
				continue // every path was in an owned map
			}
			if e := gate(r.Matchers); e != nil {
				fmt.Fprintf(b, "%s  only where the manifest has %s: elsewhere the copy reaches nothing, and kapp copies the whole object for each path of a rule it matches\n", comment, escape.Text(emptyFieldString(*e)))
			}
			fmt.Fprintf(b, "- type: copy\n  sources: [%s]\n  paths:\n", joinSources(r.Sources))
			for _, p := range siblingsAsRegex(r) {
				fmt.Fprintf(b, "  - [%s]\n", p)
			}
		}
		writeMatchers(b, r.Matchers, nsValues)
		if len(r.Remove) > 0 {
			fmt.Fprintf(b, "%s  kapp's history annotations, which the copy above takes from the live object, removed as kapp removes them before diffing\n", comment)
			b.WriteString("- type: remove\n  paths:\n")
			for _, p := range r.Remove {
				writePath(b, p)
			}
			writeMatchers(b, r.RemoveMatchers, nsValues)
		}
	}
}

// writeOwned writes the three rules that rebase an owned map (synth.OwnedMap): copied whole from
// the live object, every key but the controller's removed, the manifest's keys copied back.
func writeOwned(b *strings.Builder, m synth.OwnedMap, owner bool, ms []synth.Matcher, nsValues map[string]string) {
	path := make([]string, len(m.Path))
	for i, k := range m.Path {
		path[i] = scalar(k)
	}
	at := strings.Join(path, ", ")
	whose := "owned by the controller"
	if !owner {
		whose = "from the live object, the manifest's value winning"
	}
	fmt.Fprintf(b, "%s  %d keys of %s %s (%s ... %s): the map copied whole from the live object, every other key removed, the manifest's keys copied back (kapp copies the whole object for each key a path copies)\n",
		comment, len(m.Keys), escape.Text(strings.Join(m.Path, ".")), whose, escape.Text(m.Keys[0]), escape.Text(m.Keys[len(m.Keys)-1]))
	fmt.Fprintf(b, "- type: copy\n  sources: [existing]\n  paths:\n  - [%s]\n", at)
	writeMatchers(b, ms, nsValues)
	fmt.Fprintf(b, "- type: remove\n  paths:\n  - [%s, {regex: %s}]\n", at, scalar(m.Others))
	writeMatchers(b, ms, nsValues)
	fmt.Fprintf(b, "- type: copy\n  sources: [new]\n  paths:\n  - [%s, {regex: %s}]\n", at, scalar(everyKey))
	writeMatchers(b, ms, nsValues)
}

// everyKey is the {regex} of every key of a map.
const everyKey = "(?s)^.*$"

// writeAbout writes the comment naming a rule's classes, resources and evidence.
func writeAbout(b *strings.Builder, r synth.Rule) {
	fmt.Fprintf(b, "%s%s: %s\n", comment, escape.Text(classLabels(r)), escape.Text(resourceNames(r.Resources)))
	for _, e := range r.Evidence {
		fmt.Fprintf(b, "%s  %s\n", comment, escape.Text(e))
	}
}

func writeMatchers(b *strings.Builder, ms []synth.Matcher, nsValues map[string]string) {
	b.WriteString("  resourceMatchers:\n")
	for _, m := range ms {
		writeMatcher(b, m, nsValues, "  ")
	}
}

// writeMatcher writes one list item of matchers at indent; and/any/not nest in block style.
func writeMatcher(b *strings.Builder, m synth.Matcher, nsValues map[string]string, indent string) {
	list := func(name string, ms []synth.Matcher) {
		fmt.Fprintf(b, "%s- %s:\n%s    matchers:\n", indent, name, indent)
		for _, c := range ms {
			writeMatcher(b, c, nsValues, indent+"    ")
		}
	}
	switch {
	case m.And != nil:
		list("andMatcher", m.And.Matchers)
	case m.Any != nil:
		list("anyMatcher", m.Any.Matchers)
	case m.EmptyField != nil:
		parts := make([]string, len(m.EmptyField.Path))
		for i, p := range m.EmptyField.Path {
			parts[i] = kappPart(p)
		}
		fmt.Fprintf(b, "%s- emptyFieldMatcher: {path: [%s]}\n", indent, strings.Join(parts, ", "))
	case m.Not != nil:
		fmt.Fprintf(b, "%s- notMatcher:\n%s    matcher:\n", indent, indent)
		var inner strings.Builder
		writeMatcher(&inner, m.Not.Matcher, nsValues, indent+"    ")
		// one matcher, not a list: the item's "- " becomes indentation
		b.WriteString(strings.Replace(inner.String(), indent+"    - ", indent+"      ", 1))
	default:
		b.WriteString(indent + "- " + strings.ReplaceAll(matcher(m, nsValues), "\n      ", "\n"+indent+"    ") + "\n")
	}
}

// kappPart writes one part of a kapp path: a map key, or {index: N}. An index only where kapp
// reads the list's length first (emptyFieldMatcher, remove): its copy does not.
func kappPart(p synth.PathPart) string {
	if p.AllIndexes {
		return "{allIndexes: true}"
	}
	if p.Index != nil {
		return fmt.Sprintf("{index: %d}", *p.Index)
	}
	return scalar(p.Key)
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

// yttWhy says why a rule is a ytt rule, which kapp runs for every resource it matches, under each
// base, on every deploy, rather than a plain copy, which costs kapp next to nothing.
func yttWhy(r synth.Rule) string {
	var why []string
	if r.ByKey != "" {
		why = append(why, r.ByKey)
	} else if len(r.Keyed)+len(r.Nulls) > 0 {
		why = append(why, "a whole list item is no kapp copy path")
	}
	if len(r.Rewrites) > 0 {
		why = append(why, "a copy cannot replace a value only where it is exactly the one the server rewrote")
	}
	if r.FoldStringData {
		why = append(why, "a copy cannot move stringData into data, base64-encoded")
	}
	return strings.Join(why, "; ")
}

// shown writes a rewritten value as in the rule's description, null and "" spelled out.
func shown(v any) string {
	switch v {
	case nil:
		return "null"
	case "":
		return `""`
	}
	return fmt.Sprint(v)
}

func matcher(m synth.Matcher, nsValues map[string]string) string {
	switch {
	case m.APIVersionKind != nil:
		return fmt.Sprintf("apiVersionKindMatcher: {apiVersion: %s, kind: %s}", scalar(m.APIVersionKind.APIVersion), scalar(m.APIVersionKind.Kind))
	case m.APIGroupKind != nil:
		return fmt.Sprintf("apiGroupKindMatcher: {apiGroup: %s, kind: %s}", scalar(m.APIGroupKind.APIGroup), scalar(m.APIGroupKind.Kind))
	}
	k := m.KindNamespaceName
	if key, ok := nsValues[k.Namespace]; ok {
		// a ytt annotation on the namespace node: the rule follows the install namespace
		return fmt.Sprintf("kindNamespaceNameMatcher:\n      kind: %s\n      namespace: #@ data.values.%s\n      name: %s", scalar(k.Kind), key, scalar(k.Name))
	}
	return fmt.Sprintf("kindNamespaceNameMatcher: {kind: %s, namespace: %s, name: %s}", scalar(k.Kind), scalar(k.Namespace), scalar(k.Name))
}

func writeSecret(b *strings.Builder, rules []synth.Rule, h Header) {
	var cfg strings.Builder
	writeHeader(&cfg, h)
	writeConfig(&cfg, rules, nil)
	ns, pi := PackageInstallRef(h.Options.PackageInstall)
	if ns == "" {
		ns = h.Options.Namespace
	}
	if ns == "" {
		ns = "default"
	}
	name := pi + "-rebase-rules"
	fmt.Fprintf(b, comment+"Rebase rules for the PackageInstall %s: apply this Secret, then annotate the PackageInstall:\n", escape.Text(pi))
	// quoted for the shell it is pasted into: the names are not validated here
	fmt.Fprintf(b, comment+"  kubectl annotate packageinstall %s -n %s %s\n", escape.Text(shellQuote(pi)), escape.Text(shellQuote(ns)),
		escape.Text(shellQuote("ext.packaging.carvel.dev/ytt-paths-from-secret-name.0="+name)))
	b.WriteString(comment + "kapp-controller adds the Secret's files to the package's first ytt template step.\n")
	fmt.Fprintf(b, "apiVersion: v1\nkind: Secret\nmetadata:\n  name: %s\n  namespace: %s\nstringData:\n  rebase-rules.yml: |\n", scalar(name), scalar(ns))
	writeIndented(b, cfg.String(), "    ")
}

// joinSources writes a copy rule's sources as kapp's YAML flow list holds them.
func joinSources(srcs []ctlres.FieldCopyModSource) string {
	out := make([]string, len(srcs))
	for i, s := range srcs {
		out[i] = string(s)
	}
	return strings.Join(out, ", ")
}
