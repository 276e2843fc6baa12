package scenario

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

const fieldsComment = "# fields: written by hack/capture (make fixtures) from the live objects; keep this section last.\n"

var fieldsSection = regexp.MustCompile(`(?m)^(# fields: .*\n)?fields:`)

// Write stores res in the scenario directory: live.yaml, the server's version (ServerVersionFile),
// and the fields section of scenario.yaml (everything from the top-level `fields:` key on is
// replaced; the hand-written header is kept).
func (s *Scenario) Write(res *Result) error {
	if err := os.WriteFile(filepath.Join(s.Dir, ServerVersionFile), res.Version, 0o644); err != nil {
		return err
	}
	header := "# Captured by hack/capture (make fixtures) from kube-apiserver " + res.GitVersion + " after `kapp deploy` of\n" +
		"# desired.yaml and the steps of scenario.yaml. Do not edit.\n"
	switch {
	case s.ArgoCD():
		mode := "client-side apply, Argo CD's default sync"
		if s.Applier == ApplierArgoCDServerSide {
			mode = "server-side apply, sync option ServerSideApply=true"
		}
		header = "# Captured by hack/capture (make fixtures) from kube-apiserver " + res.GitVersion + " after Argo CD's sync of\n" +
			"# desired.yaml (" + mode + ", manager argocd-controller) and the steps of scenario.yaml. Do not edit.\n"
	case s.Adoption:
		header = "# Captured by hack/capture (make fixtures) from kube-apiserver " + res.GitVersion + " after the applies in\n" +
			"# scenario.yaml's `before`, before `kapp deploy` takes the objects over. Do not edit.\n"
	}
	live := res.Live
	if s.WithoutManagedFields {
		live = nil
		for _, o := range res.Live {
			o = o.DeepCopy()
			o.SetManagedFields(nil)
			live = append(live, o)
		}
	}
	if err := writeObjects(filepath.Join(s.Dir, "live.yaml"), header, live); err != nil {
		return err
	}
	path := filepath.Join(s.Dir, "scenario.yaml")
	old, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if loc := fieldsSection.FindIndex(old); loc != nil {
		old = old[:loc[0]]
	}
	b := bytes.NewBuffer(bytes.TrimRight(old, "\n"))
	b.WriteString("\n\n" + fieldsComment + "fields:")
	if len(res.Fields) == 0 {
		b.WriteString(" []")
	}
	b.WriteString("\n")
	for _, f := range res.Fields {
		// paths hold YAML-special characters ([ ] " :): single-quote them, doubling quotes
		p := "'" + strings.ReplaceAll(f.Path, "'", "''") + "'"
		fmt.Fprintf(b, "- resource: %s\n  path: %s\n  class: %s\n", f.Resource, p, f.Class)
	}
	s.Fields = res.Fields
	for i := range s.Objects {
		s.Objects[i].Live = live[i]
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}
