package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/rebasegen/rebasegen/generator/emit"
)

// nameFlags are the flags naming Kubernetes objects, with the validation the API server applies
// to such a name (apimachinery's: ValidateNamespaceName is IsDNS1123Label, ConfigMap, Secret and
// PackageInstall names NameIsDNSSubdomain). Hardening: the names reach suggested commands
// (kubectl annotate packageinstall NAME -n NAMESPACE) and the names of what rebasegen writes.
var nameFlags = map[string]func(string) []string{
	"namespace": validation.IsDNS1123Label,
	"app":       validation.IsDNS1123Subdomain, // kapp's app ConfigMap
	// [NAMESPACE/]NAME (emit.PackageInstallRef): the PackageInstall's namespace; the
	// PackageInstall, its kapp app ConfigMap NAME.app and the Secret generate writes,
	// NAME-rebase-rules (emit)
	"package-install": func(ref string) []string {
		ns, name := emit.PackageInstallRef(ref)
		if strings.Contains(ref, "/") {
			if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
				return append([]string{"namespace " + strconv.Quote(ns)}, errs...)
			}
		}
		for _, n := range []string{name, name + ".app", name + "-rebase-rules"} {
			if errs := validation.IsDNS1123Subdomain(n); len(errs) > 0 {
				return errs
			}
		}
		return nil
	},
	// an Argo CD Application as its tracking names it: NAME, or NAMESPACE_NAME for one outside
	// Argo CD's namespace (Application.InstanceName)
	"argocd-app": func(ref string) []string {
		ns, name, ok := strings.Cut(ref, "_")
		if !ok {
			ns, name = "", ref
		}
		if ok {
			if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
				return append([]string{"namespace " + strconv.Quote(ns)}, errs...)
			}
		}
		return validation.IsDNS1123Subdomain(name)
	},
}

// checkNames fails on the first name flag whose value Kubernetes would refuse as that name.
func checkNames(c *cli.Context) error {
	for _, f := range c.Command.Flags {
		name := f.Names()[0]
		valid, ok := nameFlags[name]
		if !ok || c.String(name) == "" {
			continue
		}
		if errs := valid(c.String(name)); len(errs) > 0 {
			return fmt.Errorf("--%s %q: not a valid Kubernetes name: %s", name, c.String(name), strings.Join(errs, "; "))
		}
	}
	return nil
}
