package rulefiles

import (
	"fmt"
	"os"
	"slices"

	"github.com/rebasegen/rebasegen/generator/load"
)

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
