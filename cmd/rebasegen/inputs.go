package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/load"
)

// inputFlags are shared by every command that reads desired and live objects.
func inputFlags() []cli.Flag {
	return append([]cli.Flag{
		&cli.StringSliceFlag{Name: "desired", Aliases: []string{"d"}, Usage: "desired objects: file, directory or - (repeatable); omitted: recovered from kapp.k14s.io/original"},
		&cli.StringSliceFlag{Name: "live", Aliases: []string{"l"}, Usage: "live objects read from the cluster, with managedFields: file, directory or - (repeatable)", Required: true},
		&cli.StringSliceFlag{Name: "crd", Usage: "CustomResourceDefinitions for schema defaulting (repeatable)"},
		&cli.StringSliceFlag{Name: "ruleset", Usage: "extra ruleset file (repeatable)"},
		&cli.StringFlag{Name: "namespace", Aliases: []string{"n"}, Usage: namespaceUsage},
	}, packageFlags()...)
}

const namespaceUsage = "namespace of namespaced desired objects without one (default: where their live counterparts are, if all in one namespace, else default)"

// noteNamespace says which namespace was inferred for the desired objects without one.
func noteNamespace(c *cli.Context, inferred string) {
	if inferred != "" {
		fmt.Fprintf(c.App.ErrWriter, "note: namespace %s inferred from the live objects (-n to choose)\n", inferred)
	}
}

// packageFlags render a ytt package into desired objects, named as ytt names them.
func packageFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "package", Usage: "ytt package config directory (or file) rendered into desired objects with the ytt library (repeatable)"},
		&cli.StringSliceFlag{Name: "values", Usage: "data values file for --package/--package-cr, like ytt --data-values-file (repeatable)"},
		&cli.StringSliceFlag{Name: "value", Usage: "data value KEY=VAL, a string, like ytt -v (repeatable)"},
		&cli.StringSliceFlag{Name: "value-yaml", Usage: "data value KEY=VAL parsed as YAML (replicas=3, enabled=true), like ytt --data-value-yaml (repeatable)"},
		&cli.StringFlag{Name: "package-cr", Usage: "kapp-controller Package (data.packaging.carvel.dev/v1alpha1) with an inline fetch, rendered like its ytt step"},
	}
}

func inputs(c *cli.Context) generator.Inputs {
	return generator.Inputs{
		Desired:   c.StringSlice("desired"),
		Live:      c.StringSlice("live"),
		CRDs:      c.StringSlice("crd"),
		Rulesets:  c.StringSlice("ruleset"),
		Namespace: c.String("namespace"),
		Package:   packageOf(c),
		Reader:    load.NewReader(os.Stdin),
		Progress:  progressFor(c),
		Cost:      c.Bool("cost"),
	}
}

func packageOf(c *cli.Context) load.Package {
	return load.Package{Dirs: c.StringSlice("package"), ValuesFiles: c.StringSlice("values"),
		Values: c.StringSlice("value"), ValuesYAML: c.StringSlice("value-yaml"), CR: c.String("package-cr")}
}

// pathFlags are the flags naming files or directories to read.
var pathFlags = []string{"desired", "live", "crd", "ruleset", "package", "values", "package-cr", "rules", "kubeconfig"}

// checkPaths fails on the first path flag whose file cannot be found or read (permission
// denied), naming the flag: the error a reader would give later names only the file.
func checkPaths(c *cli.Context) error {
	for _, f := range c.Command.Flags {
		name := f.Names()[0]
		if !slices.Contains(pathFlags, name) {
			continue
		}
		var vals []string
		switch f.(type) {
		case *cli.StringSliceFlag:
			vals = c.StringSlice(name)
		case *cli.StringFlag:
			vals = []string{c.String(name)}
		}
		for _, v := range vals {
			if v == "-" || v == "" {
				continue
			}
			if err := load.Readable(v); err != nil {
				var pe *fs.PathError
				if errors.As(err, &pe) {
					err = pe.Err
				}
				return fmt.Errorf("--%s %s: %w", name, v, err)
			}
		}
	}
	return nil
}
