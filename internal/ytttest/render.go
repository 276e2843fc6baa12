// Package ytttest renders a generated ytt rules file in-process, the way a package's ytt step
// (kapp-controller's ytt template step) would: one file, the namespace as data value ns; and holds
// the ytt rebase rule the tests of several packages judge (WebImageRule). For tests.
package ytttest

import (
	"fmt"

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

// WebImageRule is a kapp rebaseRules item (one "- ytt:" entry, for a Config's rebaseRules list)
// whose ytt overlay sets the image of the container named web of every Deployment (the
// hpa-replicas fixture's) to what the Starlark statement pick returns from n, the manifest's
// image, and e, the live one: a rule that can single out the value a change made in Git holds,
// which the mutation check's random values never hit.
func WebImageRule(pick string) string {
	return `- ytt:
    overlayContractV1:
      overlay.yml: |
        #@ load("@ytt:overlay", "overlay")
        #@ load("@ytt:data", "data")
        #@ def pick():
        #@   n = data.values.new["spec"]["template"]["spec"]["containers"][0]["image"]
        #@   e = data.values.existing["spec"]["template"]["spec"]["containers"][0]["image"]
        #@   ` + pick + `
        #@ end
        #@overlay/match by=overlay.all
        ---
        spec:
          template:
            spec:
              containers:
              #@overlay/match by="name"
              - name: web
                image: #@ pick()
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}
`
}
