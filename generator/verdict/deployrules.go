package verdict

import (
	"fmt"
	"slices"
	"strings"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator/lint"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/internal/kappconv"
	"github.com/rebasegen/rebasegen/internal/kappmatch"
)

// WaitRule is a waitRules entry of a Config kapp reads, with where it is written.
type WaitRule struct {
	At      RuleAt
	rule    ctlconf.WaitRule
	matcher kappmatch.Matcher
	built   bool // kapp builds its matcher: an empty one panics it (kappmatch.New)
}

// PreflightRule is a preflightRules entry of a Config kapp reads, with where it is written.
type PreflightRule struct {
	At   RuleAt
	rule ctlconf.PreflightRule
}

// DeployRules are the rules of the Configs kapp's deploy reads besides those it diffs with.
type DeployRules struct {
	Waits      []WaitRule
	Preflights []PreflightRule
}

// DeployRulesOf reads the wait and preflight rules of configs with kapp's parser, in kapp's order
// (config.Conf.WaitRules, PreflightRules: the first wait rule matching a resource is the one kapp
// evaluates), each with where it is written (r reads the files for the lines).
func DeployRulesOf(configs []load.Object, r *load.Reader) DeployRules {
	lines := lint.NewLines(r)
	var out DeployRules
	for _, o := range configs {
		cfg, ok := kappConfig(o)
		if !ok {
			continue
		}
		at := placer(o, lines)
		for i, w := range cfg.WaitRules {
			m, built := kappmatch.New(w.ResourceMatchers)
			out.Waits = append(out.Waits, WaitRule{at("waitRules", i), w, m, built})
		}
		for i, p := range cfg.PreflightRules {
			out.Preflights = append(out.Preflights, PreflightRule{at("preflightRules", i), p})
		}
	}
	return out
}

// preflightFails says why kapp's deploy with changes fails before it applies anything on the
// preflight rules (lint.PreflightFails), naming the first with which it fails, added in turn; ""
// when kapp takes them.
func preflightFails(rules []PreflightRule) string {
	var taken []ctlconf.PreflightRule
	for _, r := range rules {
		taken = append(taken, r.rule)
		if err := lint.PreflightFails(taken); err != nil {
			return r.At.String() + ": " + err.Error()
		}
	}
	return ""
}

// waitJudge says why kapp's wait fails on a resource of the deploy it creates, updates or keeps,
// "" when nothing shows it, and whether the evidence is weak (a warning): kapp evaluates the
// first wait rule matching the resource (resourcesmisc.NewCustomWaitingResource), unless the
// resource opts out of waiting (kapp.k14s.io/disable-wait: clusterapply ClusterChange.WaitOp) or
// kapp applies nothing to it (kapp.k14s.io/noop); it builds each rule's matcher in turn until one
// matches, and panics on an empty one. A ytt rule failing on every resource (lint.WaitRuleFails)
// is judged once; a conditionMatchers rule on the live object, nil for a resource kapp creates
// (conditionsWait).
func waitJudge(waits []WaitRule) func(res ctlres.Resource, live *unstructured.Unstructured) (string, bool) {
	const always = "kapp's deploy fails waiting on it, whatever the cluster holds: "
	judged := map[int]string{}
	return func(res ctlres.Resource, live *unstructured.Unstructured) (string, bool) {
		anns := res.Annotations()
		if _, ok := anns[kappconv.DisableWait]; ok {
			return "", false
		}
		if _, ok := anns[kappconv.NoopAnnotation]; ok {
			return "", false
		}
		for i, w := range waits {
			if !w.built {
				return always + w.At.String() + `: an empty matcher in its resourceMatchers: kapp panics building it ("Unknown resource matcher specified") when it waits on a resource no earlier wait rule matches`, false
			}
			if !w.matcher.Matches(res) {
				continue
			}
			if w.rule.Ytt == nil {
				return conditionsWait(w, live)
			}
			why, ok := judged[i]
			if !ok {
				why = lint.WaitRuleFails(w.rule, w.At.String())
				if why != "" {
					why = always + w.At.String() + ", the first wait rule matching it: " + why
				}
				judged[i] = why
			}
			return why, false
		}
		return "", false
	}
}

// conditionsWait says why kapp's wait with w, a conditionMatchers rule, never ends in success on
// a resource (resourcesmisc CustomWaitingResource.IsDoneApplying), "" when nothing shows it: it
// ends only on a condition of a matcher's type and status, successful only on a success matcher's;
// without one kapp waits until its --wait-timeout and fails the deploy. With no success matcher
// that holds whatever the cluster holds; else on the live object (nil: kapp creates it), captured
// after a deploy: a status holding none of the types the rule ends on shows that its controller
// does not write them. It fails the gate where the controller reconciled the generation captured
// (status.observedGeneration), the conditions it wrote being its current ones; without that the
// status may predate them, a warning.
func conditionsWait(w WaitRule, live *unstructured.Unstructured) (string, bool) {
	const timeout = "kapp waits until its --wait-timeout (15m by default) and fails the deploy"
	var types []string
	success := false
	for _, m := range w.rule.ConditionMatchers {
		success = success || m.Success
		if (m.Success || m.Failure || m.Timeout != "") && !slices.Contains(types, m.Type) {
			types = append(types, m.Type)
		}
	}
	rule := w.At.String() + ", the first wait rule matching it"
	if !success {
		return "kapp's deploy fails waiting on it, whatever the cluster holds: " + rule + ", has no conditionMatchers entry with success: true, so kapp never takes the resource as done and successful: it fails on a failure condition or a timeout, else " + timeout, false
	}
	if live == nil {
		return "", false
	}
	status, ok := live.Object["status"].(map[string]any)
	if !ok {
		return "", false // never reconciled, or a kind without status: nothing shows what its controller writes
	}
	conditions, _, _ := unstructured.NestedSlice(status, "conditions")
	var held []string
	for _, c := range conditions {
		t, _ := c.(map[string]any)["type"].(string)
		if slices.Contains(types, t) {
			return "", false
		}
		if t != "" && !slices.Contains(held, t) {
			held = append(held, t)
		}
	}
	holds := "no condition"
	if len(held) > 0 {
		holds = "conditions of type " + strings.Join(held, ", ") + " only"
	}
	waits := fmt.Sprintf("%s, ends its wait only on a condition of type %s, and the live object's status holds %s", rule, strings.Join(types, ", "), holds)
	observed, found, _ := unstructured.NestedInt64(status, "observedGeneration")
	if found && observed == live.GetGeneration() {
		return fmt.Sprintf("kapp's deploy fails waiting on it: %s, written by its controller after reconciling its generation %d (status.observedGeneration): the controller does not write them, so %s", waits, observed, timeout), false
	}
	return fmt.Sprintf("kapp's deploy may fail waiting on it: %s; that rests on a status without status.observedGeneration %d, which may predate the conditions its controller writes: if it never writes them, %s", waits, live.GetGeneration(), timeout), true
}
