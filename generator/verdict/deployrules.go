package verdict

import (
	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"

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
// whatever the cluster holds, "" when nothing makes it: kapp evaluates the first wait rule
// matching the resource (resourcesmisc.NewCustomWaitingResource), which fails on every resource
// (lint.WaitRuleFails), unless the resource opts out of waiting (kapp.k14s.io/disable-wait:
// clusterapply ClusterChange.WaitOp) or kapp applies nothing to it (kapp.k14s.io/noop); it builds
// each rule's matcher in turn until one matches, and panics on an empty one. Each rule is judged
// once.
func waitJudge(waits []WaitRule) func(res ctlres.Resource) string {
	judged := map[int]string{}
	return func(res ctlres.Resource) string {
		anns := res.Annotations()
		if _, ok := anns[kappconv.DisableWait]; ok {
			return ""
		}
		if _, ok := anns[kappconv.NoopAnnotation]; ok {
			return ""
		}
		for i, w := range waits {
			if !w.built {
				return w.At.String() + `: an empty matcher in its resourceMatchers: kapp panics building it ("Unknown resource matcher specified") when it waits on a resource no earlier wait rule matches`
			}
			if !w.matcher.Matches(res) {
				continue
			}
			why, ok := judged[i]
			if !ok {
				why = lint.WaitRuleFails(w.rule, w.At.String())
				if why != "" {
					why = w.At.String() + ", the first wait rule matching it: " + why
				}
				judged[i] = why
			}
			return why
		}
		return ""
	}
}
