// Package ytttest renders a generated ytt rules file in-process, the way a package's ytt step
// (kapp-controller's ytt template step) would: one file, the namespace as data value ns; and builds
// the ytt rebase rules the tests of several packages judge (Config, DeploymentRule, WebImageRule).
// For tests.
package ytttest

import (
	"fmt"
	"strings"

	cmdtpl "carvel.dev/ytt/pkg/cmd/template"
	"carvel.dev/ytt/pkg/cmd/ui"
	"carvel.dev/ytt/pkg/files"
)

// Render runs ytt on tpl with the data value ns=ns and returns the one file it writes.
// ignoreUnknownComments is the opt-in of kapp-controller's ytt step of that name.
func Render(tpl, ns string, ignoreUnknownComments bool) (string, error) {
	opts := cmdtpl.NewOptions()
	opts.IgnoreUnknownComments = ignoreUnknownComments
	opts.DataValuesFlags.KVsFromStrings = []string{"ns=" + ns}
	f, err := files.NewFileFromSource(files.NewBytesSource("rebase-rules.yml", []byte(tpl)))
	if err != nil {
		return "", err
	}
	out := opts.RunWithFiles(cmdtpl.Input{Files: []*files.File{f}}, ui.NewTTY(false))
	if out.Err != nil {
		return "", out.Err
	}
	if len(out.Files) != 1 {
		return "", fmt.Errorf("ytt wrote %d files, want 1", len(out.Files))
	}
	return string(out.Files[0].Bytes()), nil
}

// Config is a kapp Config holding the rebaseRules items given: the first item starts on line 4,
// where the errors naming a rule point.
func Config(items ...string) string {
	return "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nrebaseRules:\n" + strings.Join(items, "")
}

// DeploymentRule is a kapp rebaseRules item: a ytt rule on every apps/v1 Deployment whose overlay
// runs the Starlark code (each line a "#@ " line; data and overlay loaded) and then matches every
// document with the overlay's body; both are given unindented.
func DeploymentRule(starlark, overlay string) string {
	var b strings.Builder
	b.WriteString("- ytt:\n    overlayContractV1:\n      overlay.yml: |\n")
	b.WriteString("        #@ load(\"@ytt:overlay\", \"overlay\")\n        #@ load(\"@ytt:data\", \"data\")\n")
	for _, l := range strings.Split(strings.TrimSuffix(starlark, "\n"), "\n") {
		b.WriteString("        #@ " + l + "\n")
	}
	b.WriteString("        #@overlay/match by=overlay.all\n        ---\n")
	for _, l := range strings.Split(strings.TrimSuffix(overlay, "\n"), "\n") {
		b.WriteString("        " + l + "\n")
	}
	b.WriteString("  resourceMatchers:\n  - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}\n")
	return b.String()
}

// WebImageRule is a kapp rebaseRules item (one "- ytt:" entry, for a Config's rebaseRules list)
// whose ytt overlay sets the image of the container named web of every Deployment (the
// hpa-replicas fixture's) to what the Starlark statements pick (one or more lines) return from n,
// the manifest's image, and e, the live one: a rule that can single out the value a change made
// in Git holds, which the mutation check's random values never hit.
func WebImageRule(pick string) string {
	return DeploymentRule(`def pick():
  n = data.values.new["spec"]["template"]["spec"]["containers"][0]["image"]
  e = data.values.existing["spec"]["template"]["spec"]["containers"][0]["image"]
  `+strings.ReplaceAll(pick, "\n", "\n  ")+`
end`, `spec:
  template:
    spec:
      containers:
      #@overlay/match by="name"
      - name: web
        image: #@ pick()`)
}
