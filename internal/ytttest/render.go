// Package ytttest renders a generated ytt rules file in-process, the way a package's ytt step
// (kapp-controller's ytt template step) would: one file, the namespace as data value ns. For tests.
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
