// Package rulefiles reads the rule paths check and lint are given as kapp and kapp-controller read
// them: kapp Configs and ConfigMaps labelled kapp.k14s.io/config as written, ytt templates and
// package config directories rendered with the package's data values, and rules Secrets whose
// rebase-rules.yml kapp-controller's ytt step renders. Each path is read, and rendered, once:
// the Configs are what kapp's engine is asked with, the documents as read what lint checks.
package rulefiles

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/rebasegen/rebasegen/generator/lint"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/verdict"
	"github.com/rebasegen/rebasegen/generator/yttrender"
	"github.com/rebasegen/rebasegen/internal/escape"
	"github.com/rebasegen/rebasegen/internal/generated"
	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// Files are rule paths as read.
type Files struct {
	Configs []load.Object // the Configs kapp reads from the paths in force
	// Plain are the paths lint reads as written, Rendered what ytt rendered (a ytt template, a
	// package directory, a rules Secret's ytt rebase-rules.yml): lint checks those as rendered.
	Plain    []string
	Rendered []lint.Rendered
	// NoRules: the first path holding objects but no rules (manifests given as --rules); the
	// caller reports it after any error about its inputs, which may be the same mistake's cause
	NoRules error
	// SecretNamespaces: the namespace of each rules Secret read (IsRulesSecret), once each, in
	// reading order; "" for one written without
	SecretNamespaces []string
	// secrets: each rules Secret written in a file whose files ytt rendered, by the name of the
	// rendering
	secrets map[string]secretAt
}

// secretAt is where a rules Secret is written: its file and document, and the line of each key;
// rendered with the package, the package's overlays that rewrote each document of ytt's output
// (yttrender.InlineDoc.Overlays, by document).
type secretAt struct {
	file     string
	doc      int
	keys     map[string]int
	overlays map[int]map[string][]string
}

// Read reads paths with the package's data values; the Configs of a path are in force when
// inForce says so (check: not when the path is a desired input already, whose rules are).
func Read(r *load.Reader, paths []string, pkg yttrender.Package, inForce func(path string) bool) (Files, error) {
	var out Files
	lines := lint.NewLines(r)
	for _, p := range paths {
		if p != "-" && load.IsCaptureDir(p) {
			// read as rules, its server-version.json is "not a Kubernetes object", naming no flag
			return Files{}, fmt.Errorf("--rules %s: %s: it goes to --live; --rules takes kapp rules (a kapp Config, a file rebasegen generate wrote)",
				escape.Text(p), load.CaptureDirIs)
		}
		objs, err := objects(r, p, pkg)
		if err != nil {
			return Files{}, err
		}
		ytt, force := IsYTT(r, p), inForce(p)
		if ytt {
			out.Rendered = append(out.Rendered, lint.Rendered{Path: p, Objects: objs})
		} else {
			out.Plain = append(out.Plain, p)
		}
		rules := false
		for _, o := range objs {
			switch {
			case load.IsKappConfig(o.GetAPIVersion(), o.GetKind()) || load.IsLabelledConfig(o):
				rules = true
				if force {
					out.Configs = append(out.Configs, o)
				}
			case o.GetKind() == "Secret" && o.GetAPIVersion() == "v1":
				if IsRulesSecret(o) && !slices.Contains(out.SecretNamespaces, o.GetNamespace()) {
					out.SecretNamespaces = append(out.SecretNamespaces, o.GetNamespace())
				}
				fs, err := lint.SecretFiles(o)
				if err != nil && !lint.HoldsRulesKey(o) {
					continue // an ordinary Secret among manifests: no rules source
				}
				templated := err == nil && len(fs) > 0 && !lint.PlainSecret(fs)
				rules = rules || slices.ContainsFunc(fs, func(f lint.SecretFile) bool { return f.Key == lint.SecretKey })
				if !force && !templated {
					continue // lint reads a plain rebase-rules.yml alone itself, and reports a Secret it cannot decode
				}
				embedded, overlays, err := secretRules(r, o, pkg)
				if err != nil {
					return Files{}, err
				}
				rules = rules || len(embedded) > 0
				_, rendered := yttrender.RenderedFrom(o.Source.File)
				keys := map[string]int{} // their lines; unknown in ytt's output
				if !rendered {
					for _, f := range fs {
						keys[f.Key] = lines.Key(o, []string{"stringData", f.Key}, []string{"data", f.Key})
					}
				}
				if templated || overlays != nil && !asWritten(fs, embedded) {
					// lint reads what ytt renders (with a package: not the plain rebase-rules.yml
					// its overlays rewrite)
					var replaces load.Source
					if overlays != nil {
						replaces = o.Source
					}
					out.Rendered = append(out.Rendered, byKey(p, keys, embedded, replaces)...)
				}
				if !force {
					continue
				}
				out.Configs = append(out.Configs, embedded...)
				if !rendered && len(embedded) > 0 {
					if out.secrets == nil {
						out.secrets = map[string]secretAt{}
					}
					out.secrets[secretName(o)] = secretAt{file: o.Source.File, doc: o.Source.Doc, keys: keys, overlays: overlays}
				}
			}
		}
		if !rules && len(objs) > 0 && !ytt && out.NoRules == nil {
			// a package directory or ytt file renders the package's objects with its rules, if any
			out.NoRules = noRules(r, p, objs)
		}
	}
	return out, nil
}

// InstallNamespace is the namespace of the PackageInstall the rules Secrets are for, when every
// one names the same: kapp-controller reads a PackageInstall's ytt-paths-from-secret-name Secret
// from the PackageInstall's namespace, and installs the package's objects without one there.
func (f Files) InstallNamespace() (string, bool) {
	if len(f.SecretNamespaces) != 1 || f.SecretNamespaces[0] == "" {
		return "", false
	}
	return f.SecretNamespaces[0], true
}

// Refused is the input error for rule paths check cannot judge, nil when there is none: a path
// holding objects but no rules (NoRules), or plain paths holding nothing at all (an empty or
// comment-only file), refused as lint refuses them; either would be judged as no rules, every
// ghost diff left. A path ytt renders may be the package itself, whose rules are its own.
func (f Files) Refused(r *load.Reader) error {
	if f.NoRules != nil || len(f.Plain) == 0 || len(f.Rendered) > 0 {
		return f.NoRules
	}
	return lint.NoConfigs(lint.Options{Rules: f.Plain, Rendered: f.Rendered, Reader: r})
}

// noRules is the error for a plain rules path holding objects but no rules: manifests given as
// --rules would be judged as no rules at all, every ghost diff left, with nothing saying why.
func noRules(r *load.Reader, p string, objs []load.Object) error {
	what, first, fix := "objects kapp would deploy", objs[0], "manifests go to --desired, a package's templates to --package"
	if data, err := r.ReadFile(p); err == nil && generated.Captured(data) != generated.None && filepath.Base(p) != load.CaptureDesired {
		what, fix = "live objects rebasegen capture read from the cluster", "live objects go to --live"
	}
	for _, o := range objs {
		if strings.HasPrefix(o.GetAPIVersion(), "argoproj.io/") && o.GetKind() == "Application" ||
			o.GetAPIVersion() == "v1" && o.GetKind() == "ConfigMap" && o.GetName() == "argocd-cm" {
			what, first, fix = "Argo CD's settings", o, "check --target argocd judges their ignoreDifferences"
			break
		}
	}
	name := first.GetName()
	if ns := first.GetNamespace(); ns != "" {
		name = ns + "/" + name
	}
	return fmt.Errorf("--rules %s holds no kapp rules (a kapp Config, a ConfigMap labelled %s or a Secret holding %s), only %s, the first %s %s %s (%s): %s",
		escape.Text(p), kappconv.ConfigLabel, lint.SecretKey, what, escape.Text(first.GetAPIVersion()), escape.Text(first.GetKind()), escape.Text(name), first.Source, fix)
}

// Rules reads the rules of configs (those in force: the package's own and f.Configs) that can
// hide a declared field (verdict.Rules); those ytt rendered from a rules Secret written in a file
// are placed at the Secret's key they were rendered from, the line an author (and a GitHub
// annotation) can find.
func (f Files) Rules(configs []load.Object, r *load.Reader) []verdict.Rule {
	rules := verdict.Rules(configs, r)
	for i := range rules {
		at := &rules[i].At
		s, ok := f.secrets[at.File]
		if !ok || at.Line != 0 || at.From == "" {
			continue
		}
		// the rule's key and index last, as lint reads them
		where, line := `data["`+at.From+`"]`, s.keys[at.From]
		if _, key := s.keys[at.From]; !key {
			where, line = "a document the package's overlay "+at.From+" put in place of one of its files'", s.keys[lint.SecretKey]
		}
		if by := rewrittenBy(s.overlays[at.Doc], at.Key); len(by) > 0 {
			where += " rewritten by the package's overlay " + strings.Join(by, ", ") + ":"
		}
		at.File, at.Doc, at.Line, at.Key = s.file, s.doc, line, where+" "+at.Key
	}
	return rules
}

// rewrittenBy are the package's overlays that rewrote the rule at key (verdict.RuleAt's) of a
// document, overlays its yttrender.InlineDoc.Overlays.
func rewrittenBy(overlays map[string][]string, key string) []string {
	if strings.Contains(key, " ") { // in a labelled ConfigMap's data["config.yml"], one string
		return overlays["data"]
	}
	return overlays[key]
}

// byKey are the documents ytt rendered from a rules Secret's files, as lint reads them: by the
// key each came from, at that key's line in path (a document a package's overlay put in place of
// one: at rebase-rules.yml's); rendered with a package, in place of the Secret (replaces) as
// written.
func byKey(path string, keys map[string]int, objs []load.Object, replaces load.Source) []lint.Rendered {
	var out []lint.Rendered
	at := map[string]int{}
	for _, o := range objs {
		i, ok := at[o.Source.From]
		if !ok {
			line, key := keys[o.Source.From]
			if !key {
				line = keys[lint.SecretKey]
			}
			i, at[o.Source.From] = len(out), len(out)
			out = append(out, lint.Rendered{Path: path, Line: line, Replaces: replaces})
		}
		out[i].Objects = append(out[i].Objects, o)
	}
	return out
}

// asWritten says the Configs ytt rendered from a rules Secret's files are its plain
// rebase-rules.yml as written (lint.PlainSecret): no package overlay rewrote them.
func asWritten(fs []lint.SecretFile, embedded []load.Object) bool {
	if !lint.PlainSecret(fs) {
		return false
	}
	docs, err := load.ParseDocs(fs[0].Key, []byte(fs[0].Text))
	if err != nil {
		return false
	}
	objs, err := load.Objects(docs)
	if err != nil || len(objs) != len(embedded) {
		return false
	}
	for i := range objs {
		if !reflect.DeepEqual(objs[i].Object, embedded[i].Object) {
			return false
		}
	}
	return true
}

// secretName is what ytt's rendering of a rules Secret's files is called.
func secretName(o load.Object) string { return o.Source.File + " (" + lint.SecretKey + ")" }

// objects reads one rule path; a file or directory holding ytt templates is rendered.
func objects(r *load.Reader, p string, pkg yttrender.Package) ([]load.Object, error) {
	if !IsYTT(r, p) {
		return load.Paths([]string{p}, r)
	}
	what := "rules file"
	if st, err := os.Stat(p); err == nil && st.IsDir() {
		what = "rules directory"
	}
	docs, err := (yttrender.Package{Dirs: []string{p}, ValuesFiles: pkg.ValuesFiles, Values: pkg.Values, ValuesYAML: pkg.ValuesYAML, What: what}).Render(r)
	if err != nil {
		return nil, err
	}
	return load.Objects(docs)
}

// IsYTT says whether a file, or any file of a directory, holds ytt annotations
// (yttrender.HasYTTAnnotations): it is rendered with ytt, not read as plain YAML. r reads p: stdin and pipes only once, so that what is sniffed
// here is still there to read.
func IsYTT(r *load.Reader, p string) bool {
	files, _ := r.ReadPath(p) // an error is reported when p is read
	for _, f := range files {
		if f.Name != "-" && yttrender.HasYTTAnnotations(f.Name, f.Data) { // stdin is read as plain YAML
			return true
		}
	}
	return false
}

// secretRules reads the Configs a rules Secret carries: its files (every key) rendered together
// with ytt, as kapp-controller's ytt step renders the files of a Secret named by
// ext.packaging.carvel.dev/ytt-paths-from-secret-name (it writes every key as a file,
// fetch/inline.go writeFromSecret): with a package, in the package's run
// (yttrender.RenderInline: the package's data values, schema and overlays apply to them; overlays
// are, by document of ytt's output, the package's overlays that rewrote it, non-nil then), else
// with the data values given.
func secretRules(r *load.Reader, o load.Object, pkg yttrender.Package) ([]load.Object, map[int]map[string][]string, error) {
	fs, err := lint.SecretFiles(o)
	if err != nil {
		return nil, nil, &load.Error{Source: o.Source, Msg: err.Error()}
	}
	if len(fs) == 0 {
		return nil, nil, nil
	}
	templates := make([]yttrender.Template, len(fs))
	for i, f := range fs {
		if what := yttrender.ChangesOtherFiles(f.Key, []byte(f.Text)); what != "" {
			// kapp-controller passes the Secret's files to the package's own ytt run, after the
			// package's files (pkg/template/ytt.go): they would change the package's objects
			return nil, nil, &load.Error{Source: o.Source, Field: f.Key, Msg: "it uses " + what + ", which kapp-controller applies to the package's objects too (its ytt step renders the Secret's files with the package's): not supported (put the rules in a Config without them)"}
		}
		templates[i] = yttrender.Template{Source: o.Source.File + " (" + f.Key + ")", Name: f.Key, Data: []byte(f.Text)}
	}
	var docs []load.Doc
	var overlays map[int]map[string][]string
	if pkg.Empty() {
		docs, err = pkg.RenderFiles(r, secretName(o), templates)
	} else {
		var inline []yttrender.InlineDoc
		inline, err = pkg.RenderInline(r, secretName(o), templates)
		overlays = map[int]map[string][]string{}
		for _, d := range inline {
			docs = append(docs, d.Doc)
			overlays[d.Source.Doc] = d.Overlays
		}
	}
	if err != nil {
		return nil, nil, err
	}
	objs, err := load.Objects(docs)
	if err != nil {
		return nil, nil, err
	}
	for _, c := range objs {
		if !load.IsKappConfig(c.GetAPIVersion(), c.GetKind()) && !load.IsLabelledConfig(c) {
			// kapp-controller would deploy it with the package's objects
			by := c.Source.From
			if overlays == nil {
				by = renderedBy(r, pkg, o, templates, c)
			}
			return nil, nil, &load.Error{Source: o.Source, Field: by, Msg: fmt.Sprintf("its files render %s %s (%s, ytt output document %d), which is no kapp Config (apiVersion %s, kind %s) nor a ConfigMap labelled %s: kapp-controller would deploy it with the package; not supported in a rules Secret",
				c.GetAPIVersion(), c.GetKind(), c.GetName(), c.Source.Doc, kappconv.ConfigAPIVersion, kappconv.ConfigKind, kappconv.ConfigLabel)}
		}
	}
	return objs, overlays, nil
}

// renderedBy names the key of a rules Secret whose file renders c alone ("" when none does: the
// files render it together): the error path only, each file rendered again.
func renderedBy(r *load.Reader, pkg yttrender.Package, o load.Object, templates []yttrender.Template, c load.Object) string {
	for _, t := range templates {
		docs, err := pkg.RenderFiles(r, secretName(o), []yttrender.Template{t})
		if err != nil {
			continue
		}
		objs, _ := load.Objects(docs)
		for _, x := range objs {
			if x.GetAPIVersion() == c.GetAPIVersion() && x.GetKind() == c.GetKind() && x.GetName() == c.GetName() {
				return t.Name
			}
		}
	}
	return ""
}
