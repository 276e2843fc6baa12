package main

import (
	"os"

	"github.com/urfave/cli/v2"

	"github.com/rebasegen/rebasegen/generator"
)

// inputFlags are shared by every command that reads desired and live objects.
func inputFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "desired", Aliases: []string{"d"}, Usage: "desired objects: file, directory or - (repeatable); omitted: recovered from kapp.k14s.io/original"},
		&cli.StringSliceFlag{Name: "live", Aliases: []string{"l"}, Usage: "live objects read from the cluster, with managedFields: file, directory or - (repeatable)", Required: true},
		&cli.StringSliceFlag{Name: "crd", Usage: "CustomResourceDefinitions for schema defaulting (repeatable)"},
		&cli.StringSliceFlag{Name: "ruleset", Usage: "extra ruleset file (repeatable)"},
		&cli.StringFlag{Name: "namespace", Aliases: []string{"n"}, Value: "default", Usage: "namespace of namespaced desired objects without one"},
	}
}

func inputs(c *cli.Context) generator.Inputs {
	return generator.Inputs{
		Desired:   c.StringSlice("desired"),
		Live:      c.StringSlice("live"),
		CRDs:      c.StringSlice("crd"),
		Rulesets:  c.StringSlice("ruleset"),
		Namespace: c.String("namespace"),
		Stdin:     os.Stdin,
	}
}
