package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
	apiextensionsvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/verdict"
	"github.com/rebasegen/rebasegen/generator/yttrender"
	"github.com/rebasegen/rebasegen/internal/escape"
	"github.com/rebasegen/rebasegen/internal/words"
)

// inputFlags are shared by every command that reads desired and live objects.
func inputFlags() []cli.Flag {
	return slices.Concat([]cli.Flag{
		&cli.StringSliceFlag{Name: "desired", Aliases: []string{"d"}, Usage: "desired objects: file, directory or - (repeatable); omitted: recovered from kapp.k14s.io/original"},
		&cli.StringSliceFlag{Name: "live", Aliases: []string{"l"}, Usage: "live objects read from the cluster, with managedFields: file, directory or - (repeatable)", Required: true},
	}, classifyFlags(), []cli.Flag{
		&cli.StringFlag{Name: "namespace", Aliases: []string{"n"}, Usage: namespaceUsage},
		serverVersionFlag(),
	}, packageFlags())
}

// classifyFlags are the inputs that classify a field besides the objects themselves: lint
// judges its rules with every rule in force as check does, so it takes them too, or a rule
// check keeps (a controller named in a ruleset) is one lint calls hiding a change made in Git.
func classifyFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "crd", Usage: "CustomResourceDefinitions for schema defaulting (repeatable)"},
		&cli.StringSliceFlag{Name: "ruleset", Usage: "extra ruleset file (repeatable)"},
		&cli.BoolFlag{Name: "no-operational", Usage: "annotations people stamp on purpose at run time (kubectl rollout restart's restartedAt) are drift, not ruled"},
	}
}

// serverVersionFlag is --server-version of every command that reads live objects.
func serverVersionFlag() cli.Flag {
	return &cli.StringFlag{Name: "server-version", Usage: "Kubernetes version of the API server the live objects come from, vX.Y.Z: its defaults, and the API versions it serves (a manifest on one it does not serve fails check) (default: the server-version.json rebasegen capture writes beside live.yaml)"}
}

const namespaceUsage = "namespace of namespaced desired objects without one (not given: where their live counterparts are; an error naming the namespaces when they are in several; default when none is live)"

// noteNamespace says which namespace was inferred for the desired objects without one, or that
// -n places none of them: a user taking -n for the namespace to deploy into learns it does not
// move objects that declare theirs.
func noteNamespace(c *cli.Context, inferred string, unused bool) {
	if inferred != "" {
		fmt.Fprintf(c.App.ErrWriter, "note: namespace %s inferred from the live objects (-n to choose)\n", escape.Text(inferred))
	}
	if unused {
		fmt.Fprintf(c.App.ErrWriter, "note: -n %s is not used: every namespaced desired object declares its own namespace, where kapp deploys it\n", escape.Text(c.String("namespace")))
	}
}

// noteRedacted says which Secret values rebasegen capture redacted in the live objects: unknown,
// each was taken as the manifest's, so no finding is about them.
func noteRedacted(c *cli.Context, redacted []string) {
	if len(redacted) > 0 {
		fmt.Fprintf(c.App.ErrWriter, "note: %s redacted by rebasegen capture (%s): unknown, taken as the manifest's (neither drift nor a change made in Git)\n",
			words.Count(len(redacted), "Secret value"), escape.Text(strings.Join(redacted, ", ")))
	}
}

// noteUnmanaged warns that live objects carry no managedFields: who set each field is then
// known from rebasegen's rulesets alone, and more fields are unknown. Reading them again is the
// advice only for those not read by rebasegen capture (uncaptured): capture read the others as
// the API server returned them.
func noteUnmanaged(c *cli.Context, unmanaged, uncaptured, live int) {
	switch {
	case uncaptured > 0:
		fmt.Fprintf(c.App.ErrWriter, "warning: %d of %d live objects carry no metadata.managedFields, the evidence of who set each field: read them with kubectl get -o yaml --show-managed-fields (kubectl leaves them out by default) or rebasegen capture\n", unmanaged, live)
	case unmanaged > 0:
		fmt.Fprintf(c.App.ErrWriter, "warning: %d of %d live objects carry no metadata.managedFields, the evidence of who set each field: rebasegen capture read them so from the API server, so who set each field is known from the rulesets alone\n", unmanaged, live)
	}
}

// noteVersion warns that the live objects come from a server whose defaults rebasegen does not
// know.
func noteVersion(c *cli.Context, warning string) {
	if warning != "" {
		fmt.Fprintf(c.App.ErrWriter, "warning: %s\n", escape.Text(warning))
	}
}

// noteElsewhere says which desired objects kapp would create are live in another namespace: a
// wrong -n leaves them unpaired, and explain has no error to say so; and when most desired
// objects are missing from the live input beside paired ones (a partial capture, one object's
// kubectl get): rebasegen knows only the live input, not the cluster.
func noteElsewhere(c *cli.Context, paired int, unpaired []verdict.Unpaired) {
	byNS := map[string][]string{}
	var order []string
	for _, u := range unpaired {
		if len(u.LiveIn) == 0 {
			continue
		}
		ns := u.LiveIn[0]
		if byNS[ns] == nil {
			order = append(order, ns)
		}
		byNS[ns] = append(byNS[ns], u.Resource.String())
	}
	for _, ns := range order {
		what, it := strings.Join(byNS[ns], ", "), "it"
		if n := len(byNS[ns]); n > 3 {
			what, it = fmt.Sprintf("%d desired objects (%s, ...)", n, strings.Join(byNS[ns][:3], ", ")), "them"
		} else if n > 1 {
			it = "them"
		}
		fmt.Fprintf(c.App.ErrWriter, "note: %s: not among the live objects, but they hold %s in namespace %s: did you mean -n %s?\n", escape.Text(what), it, escape.Text(ns), escape.Text(ns))
	}
	missing := 0
	for _, u := range unpaired {
		if len(u.LiveIn) == 0 {
			missing++
		}
	}
	if paired > 0 && missing > paired {
		fmt.Fprintf(c.App.ErrWriter, "note: %d of %d desired objects are not among the live objects: kapp creates them only where the cluster lacks them; if they are deployed, give them with --live too (rebasegen capture saves every object of the app)\n", missing, paired+len(unpaired))
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

		NoOperational: c.Bool("no-operational"),
		ServerVersion: c.String("server-version"),
		// the library does not link it (grpc: TestImportGraph); the binary does, for Argo CD too
		CRDUpdate: apiextensionsvalidation.ValidateCustomResourceDefinitionUpdate,
	}
}

func packageOf(c *cli.Context) yttrender.Package {
	return yttrender.Package{Dirs: c.StringSlice("package"), ValuesFiles: c.StringSlice("values"),
		Values: c.StringSlice("value"), ValuesYAML: c.StringSlice("value-yaml"), CR: c.String("package-cr")}
}

// checkValues refuses a --value that is not KEY=VALUE before the package is rendered: ytt's error
// for it names no flag. A file's name given to it suggests the path flag closest by name
// (--values: newcomer16 N16-5, one letter short of it).
func checkValues(c *cli.Context) error {
	if !slices.ContainsFunc(c.Command.Flags, func(f cli.Flag) bool { return f.Names()[0] == "value" }) {
		return nil
	}
	for _, v := range c.StringSlice("value") {
		if k, _, ok := strings.Cut(v, "="); !ok || strings.TrimSuffix(k, "+") == "" {
			msg := fmt.Sprintf("--value %s: want KEY=VALUE (a data value, as ytt -v takes it)", escape.Text(v))
			if _, err := os.Stat(v); err == nil {
				var paths []string
				for _, f := range c.Command.Flags {
					if slices.Contains(pathFlags, f.Names()[0]) {
						paths = append(paths, dashed(f.Names()[0]))
					}
				}
				if meant := closest(paths, "--value"); meant != "" {
					msg += fmt.Sprintf("\nhint: did you mean %s %s? (it names a file)", meant, escape.Text(v))
				}
			}
			return errors.New(msg)
		}
	}
	return nil
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
				return fmt.Errorf("--%s %s: %w", name, escape.Text(v), err) // the name may hold a line break
			}
		}
	}
	return nil
}
