package yttrender

import (
	cmdtpl "carvel.dev/ytt/pkg/cmd/template"
	"carvel.dev/ytt/pkg/cmd/ui"
	"carvel.dev/ytt/pkg/files"
)

// waitConfig is the config.yml kapp v0.66.0's resourcesmisc.WaitRuleContractV1 evaluates a wait
// rule's starlark with, its loads on the same lines, without the call of is_done: what is_done
// returns depends on the resource the cluster holds, whether the program loads does not.
const waitConfig = `
#@ load("resource.star", "is_done")
#@ load("@ytt:data", "data")

result: null
`

// loadWaitRule loads starlark as kapp's wait rule evaluation does before it calls is_done: ytt's
// error where it does not compile, lacks is_done, or its top level fails.
func loadWaitRule(starlark string) error {
	in := []*files.File{
		files.MustNewFileFromSource(files.NewBytesSource("resource.star", []byte(starlark))),
		files.MustNewFileFromSource(files.NewBytesSource("config.yml", []byte(waitConfig))),
	}
	if out := cmdtpl.NewOptions().RunWithFiles(cmdtpl.Input{Files: in}, ui.NewTTY(false)); out.Err != nil {
		return out.Err
	}
	return nil
}

// LoadWaitRule loads a wait rule's funcContractV1 starlark (resource.star) as kapp v0.66.0 does
// each time it evaluates the rule on a resource it waits on, within the budget of a package
// render: kapp runs it in its own process without one. Where it does not load, kapp's wait fails
// on every resource it evaluates the rule on, whatever the cluster holds; the error is ytt's,
// naming the rule (source), and OverBudget where the load was abandoned for its budget. It runs
// where EvalRebaseRule runs a rebase rule.
func LoadWaitRule(source, starlark string) error {
	if childRenders.Load() {
		return evalRuleWithin("ytt wait rule "+source, ruleRequest{Overlay: starlark, Wait: true}, defaultLimits)
	}
	p := Package{What: "ytt wait rule", Source: source, Templates: []Template{
		{Source: source, Name: "resource.star", Data: []byte(starlark)},
		{Source: source, Name: "config.yml", Data: []byte(waitConfig)},
	}}
	_, err := p.run(nil, documents)
	return err
}
