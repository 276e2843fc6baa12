package rulefiles

import (
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"

	"github.com/rebasegen/rebasegen/generator/lint"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/internal/escape"
	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// IsRulesSecret says o is a rules Secret: a v1 Secret holding rebase-rules.yml, as rebasegen
// generate --output secret writes it for a PackageInstall's ytt-paths-from-secret-name.
func IsRulesSecret(o load.Object) bool {
	return o.GetAPIVersion() == "v1" && o.GetKind() == "Secret" && lint.HoldsRulesKey(o)
}

// SecretsAsDesired refuses a --desired file holding rules Secrets and nothing kapp deploys besides
// kapp Configs: the rules given with the wrong flag. kapp would create the Secret as any other
// object and read no rule from it (kapp-controller reads it from the cluster, named by the
// PackageInstall), so the rules were judged as none: explain called it "kapp would create it",
// check failed on every ghost diff they remove, generate found nothing paired (newcomer
// walkthrough 10, N10-6). A Secret a desired PackageInstall names (ytt-paths-from-secret-name)
// is the app's to deploy: kept.
func SecretsAsDesired(desired []load.Doc) error {
	named := map[string]bool{} // namespace/name of each Secret a desired PackageInstall names
	for _, d := range desired {
		if d.Kind != "PackageInstall" || !strings.HasPrefix(d.APIVersion, "packaging.carvel.dev/") {
			continue
		}
		o, err := d.Object()
		if err != nil {
			return err
		}
		for k, v := range o.GetAnnotations() {
			if k == kappconv.YTTPathsFromSecret || strings.HasPrefix(k, kappconv.YTTPathsFromSecret+".") {
				named[d.Namespace+"/"+v] = true
			}
		}
	}
	var files []string
	secrets, others := map[string][]load.Doc{}, map[string]bool{}
	for _, d := range desired {
		f := d.Source.File
		if !slices.Contains(files, f) {
			files = append(files, f)
		}
		o, err := d.Object()
		if err != nil {
			return err
		}
		switch {
		case IsRulesSecret(o) && !named[d.Namespace+"/"+d.Name]:
			secrets[f] = append(secrets[f], d)
		case !load.IsKappConfig(d.APIVersion, d.Kind) && !d.ConfigLabelled:
			others[f] = true
		}
	}
	for _, f := range files {
		if len(secrets[f]) == 0 || others[f] {
			continue
		}
		d := secrets[f][0]
		return fmt.Errorf("--desired %s: a rules Secret, not a manifest: v1 Secret %s holding %s, as rebasegen generate --output secret writes it for a PackageInstall; kapp would create it as a Secret and read no rule from it: check and lint judge its rules with --rules %s, and -d takes the manifests they are for",
			d.Source, escape.Text(strings.TrimPrefix(d.Namespace+"/"+d.Name, "/")), lint.SecretKey, escape.Text(f))
	}
	return nil
}

// ReadAsDesired reports whether every file of the --rules path p is also a file of a desired
// input (desired: the --desired paths and the package's directories): its rules are in force from
// there (the package's own, or generated ones), and read again they would be applied twice.
func ReadAsDesired(r *load.Reader, p string, desired []string) bool {
	if p == "-" {
		return false
	}
	rules, err := r.ReadPath(p)
	if err != nil {
		return false
	}
	var desiredFiles []os.FileInfo
	for _, d := range desired {
		if d == "-" {
			continue
		}
		files, _ := r.ReadPath(d)
		for _, f := range files {
			if st, err := os.Stat(f.Name); err == nil {
				desiredFiles = append(desiredFiles, st)
			}
		}
	}
	for _, f := range rules {
		st, err := os.Stat(f.Name)
		if err != nil || !slices.ContainsFunc(desiredFiles, func(d os.FileInfo) bool { return os.SameFile(d, st) }) {
			return false
		}
	}
	return true
}

// YTTHint adds to err, an error reading the paths of flag (--desired, --live), which of them hold
// ytt templates: read as plain YAML, a template's data values and placeholders are no Kubernetes
// objects. A package is rendered with --package; --live takes what the cluster returns.
func YTTHint(err error, r *load.Reader, flag string, paths []string) error {
	for _, p := range paths {
		if !IsYTT(r, p) {
			continue
		}
		if flag == "--crd" {
			return fmt.Errorf("%w\n--crd %s holds ytt templates (#@ annotations): --crd takes CustomResourceDefinitions as plain YAML; the CRDs a package renders are read from --package", err, p)
		}
		if flag == "--live" {
			return fmt.Errorf("%w\n--live %s holds ytt templates (#@ annotations): --live takes the live objects as the cluster returns them (kubectl get -o yaml --show-managed-fields, or rebasegen capture); a package goes to --package %s (data values with --values, --value)", err, p, p)
		}
		return fmt.Errorf("%w\n%s %s holds ytt templates (#@ annotations): render them with --package %s (data values with --values, --value)", err, flag, p, p)
	}
	return err
}

// Rereadable says whether path p, a rules file given beside the input that reads it, may be read
// again: only files and directories. A named pipe is read once, by the reading it is given to, and
// generate's --output-file as a pipe has no writer until generate writes it (opening it to read
// would wait for ever).
func Rereadable(p string) bool {
	st, err := os.Stat(p)
	return p != "-" && err == nil && (st.Mode().IsRegular() || st.IsDir())
}

// MarkRenderedCopies marks Source.Generated the kapp Configs (and labelled ConfigMaps) among
// desired that hold exactly a Config of a file rebasegen generated among paths (check's --rules,
// generate's --output-file): a rendered copy of that file, its rules and not the package's own.
// ytt, rendering a package whose config directory holds the generated file, strips the "#!"
// header that marks the file itself (load.IsGenerated), so a rendered stream given as --desired
// made the copy count as the package's own rules: check regenerated the file without the rules
// the copy applied and called it stale, and generate verified its new rules with the old ones in
// force, then replaced them (newcomer16 N16-1). Compared as kapp reads them: the objects, not
// their text.
func MarkRenderedCopies(r *load.Reader, desired []load.Doc, paths []string) error {
	var generated []load.Object
	for _, p := range paths {
		if !Rereadable(p) {
			continue
		}
		files, err := r.ReadPath(p)
		if err != nil {
			continue // the path's own reading reports it
		}
		for _, f := range files {
			if !load.IsGenerated(f.Data) {
				continue
			}
			objs, err := load.Bytes(f.Name, f.Data)
			if err != nil {
				continue
			}
			for _, o := range objs {
				if load.IsKappConfig(o.GetAPIVersion(), o.GetKind()) || load.IsLabelledConfig(o) {
					generated = append(generated, o)
				}
			}
		}
	}
	if len(generated) == 0 {
		return nil
	}
	for i, d := range desired {
		if d.Source.Generated || !load.IsKappConfig(d.APIVersion, d.Kind) && !d.ConfigLabelled {
			continue
		}
		o, err := d.Object()
		if err != nil {
			return err
		}
		if Held(generated, o) {
			desired[i].Source.Generated = true
		}
	}
	return nil
}

// Held reports whether configs hold c, compared as kapp reads them (the objects).
func Held(configs []load.Object, c load.Object) bool {
	return slices.ContainsFunc(configs, func(o load.Object) bool { return reflect.DeepEqual(o.Object, c.Object) })
}
