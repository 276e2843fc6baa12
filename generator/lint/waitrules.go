package lint

import (
	"fmt"
	"strings"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"

	"github.com/rebasegen/rebasegen/generator/yttrender"
	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// WaitRuleFails says why kapp v0.66.0 fails to wait on any resource wait rule r is the first to
// match, whatever the cluster holds, "" when nothing makes it: kapp evaluates that rule on every
// such resource of a deploy (resourcesmisc.NewCustomWaitingResource, the first waiter
// clusterapply's ConvergedResourceFactory tries), the resources it keeps included (their wait op);
// source names the rule. A ytt without funcContractV1 makes kapp dereference nil and panic
// (resourcesmisc/custom_waiting_resource.go); starlark that does not load fails the wait.
func WaitRuleFails(r ctlconf.WaitRule, source string) string {
	switch {
	case r.Ytt == nil:
		return ""
	case r.Ytt.FuncContractV1 == nil:
		return "ytt without funcContractV1: kapp v" + kappconv.Kapp + " panics when it waits on a resource the rule matches (it reads ytt.funcContractV1's resource.star), and the deploy dies"
	}
	if err := yttrender.LoadWaitRule(source, r.Ytt.FuncContractV1.Resource); err != nil {
		msg := strings.TrimPrefix(err.Error(), "rendering ytt wait rule "+source+" with ytt:") // the rule is named already
		return "its funcContractV1 resource.star does not load in ytt, so kapp v" + kappconv.Kapp + "'s wait on a resource the rule matches fails (Error: Applying ytt wait rule): " +
			strings.Join(strings.Fields(msg), " ")
	}
	return ""
}

// waitRules reports each wait rule of the document kapp fails to wait with (WaitRuleFails), its
// matchers' mistakes, and, with desired objects, a rule none of them matches: kapp evaluates wait
// rules on the resources its deploy applies (clusterapply ConvergedResourceFactory.New, given the
// resource of each change), its associated resources only through its own waiters.
func (c *checker) waitRules(root at) {
	for i, a := range root.field("waitRules").items() {
		var r ctlconf.WaitRule
		if decode(a.v, &r) != nil {
			continue // kapp refuses the Config: a finding of its own
		}
		built := true
		for j, item := range a.field("resourceMatchers").items() {
			built = c.matcher(r.ResourceMatchers[j], item) && built // kapp builds them as a rebase rule's
		}
		where := fmt.Sprintf("waitRules[%d]", i)
		if c.desired && built && len(c.matching(c.resources, r.ResourceMatchers)) == 0 {
			c.add(Warning, orElse(a.field("resourceMatchers"), a), where+": its resourceMatchers match none of the desired objects, so the rule never applies: kapp waits with a wait rule only on the resources its deploy applies, never on those it lists as associated with them (a Deployment's ReplicaSets and Pods)",
				"match the desired objects kapp should wait on, or remove the rule")
		}
		if why := WaitRuleFails(r, FileLine(c.where(a))+", "+where); why != "" {
			c.add(Error, a.field("ytt"), where+": every deploy creating, changing or keeping a resource it is the first wait rule to match fails: "+why,
				"give ytt a funcContractV1 whose resource.star defines is_done(resource), or use conditionMatchers")
		}
	}
}
