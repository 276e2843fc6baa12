package main

import (
	"os"

	"github.com/urfave/cli/v2"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/load"
)

// inputFlags are shared by every command that reads desired and live objects.
func inputFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "desired", Aliases: []string{"d"}, Usage: "desired objects: file, directory or - (repeatable); omitted: recovered from kapp.k14s.io/original"},
		&cli.StringSliceFlag{Name: "live", Aliases: []string{"l"}, Usage: "live objects read from the cluster, with managedFields: file, directory or - (repeatable)", Required: true},
		&cli.StringSliceFlag{Name: "crd", Usage: "CustomResourceDefinitions for schema defaulting (repeatable)"},
		&cli.StringSliceFlag{Name: "ruleset", Usage: "extra ruleset file (repeatable)"},
		&cli.StringFlag{Name: "namespace", Aliases: []string{"n"}, Value: "default", Usage: "namespace of namespaced desired objects without one"},
		&cli.StringSliceFlag{Name: "package", Usage: "ytt package config directory (or file) rendered into desired objects with the ytt library (repeatable)"},
		&cli.StringSliceFlag{Name: "values", Usage: "data values file for --package/--package-cr (repeatable)"},
		&cli.StringSliceFlag{Name: "value", Usage: "data value KEY=VAL for --package/--package-cr (repeatable)"},
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
		Package: load.Package{Dirs: c.StringSlice("package"), ValuesFiles: c.StringSlice("values"),
			Values: c.StringSlice("value"), CR: c.String("package-cr")},
		Stdin:    os.Stdin,
		Progress: progressFor(c),
	}
}
