package lint

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/internal/words"
)

// duplicates reports paths kapp's built-in rules already rebase the same way: kapp applies its
// defaults first, so repeating them changes nothing.
func (c *checker) duplicates(a at, r ctlconf.RebaseRule) {
	if len(r.ResourceMatchers) == 0 {
		return
	}
	for _, d := range c.defaults {
		if r.Ytt != nil && d.Ytt != nil && reflect.DeepEqual(r.Ytt, d.Ytt) && subset(r.ResourceMatchers, d.ResourceMatchers) {
			c.add(Warning, a, "ytt rule repeats kapp's built-in rule for the same resources: kapp applies its defaults before any Config", "remove it")
			return
		}
	}
	for _, p := range rulePaths(a, r) {
		for _, d := range c.defaults {
			if d.Ytt == nil && d.Type == r.Type && slices.Equal(d.Sources, r.Sources) &&
				subset(r.ResourceMatchers, d.ResourceMatchers) &&
				slices.ContainsFunc(slices.Concat(d.Paths, []ctlres.Path{d.Path}), func(q ctlres.Path) bool { return reflect.DeepEqual(q, p.p) }) {
				c.add(Warning, p.at, fmt.Sprintf("path %s repeats kapp's built-in rebase rule (same type, sources and matchers): kapp applies its defaults before any Config, so this changes nothing", FormatPath(p.p)),
					"remove it (kapp deploy-config prints the built-in rules)")
				break
			}
		}
	}
}

// subset: kapp ORs a rule's matchers, so a rule whose matchers are all among the default's
// applies to no resource the default does not.
func subset(ms, of []ctlconf.ResourceMatcher) bool {
	for _, m := range ms {
		if !slices.ContainsFunc(of, func(o ctlconf.ResourceMatcher) bool { return reflect.DeepEqual(m, o) }) {
			return false
		}
	}
	return true
}

// subtrees are paths that rebase everything below them (field-pitfalls 13).
var subtrees = map[string]string{
	"spec":                 "any change made in Git under it is hidden too",
	"data":                 "any change made in Git under it is hidden too",
	"metadata.labels":      "any label changed in Git is hidden too",
	"metadata.annotations": "any annotation changed in Git is hidden too, and copying them from the cluster brings kapp's own annotations back",
	"status":               "status needs no rule (kapp ignores the live status when it diffs), and copying it from the cluster adds a diff instead of removing one",
}

func (c *checker) broad(a at, r ctlconf.RebaseRule) {
	narrower, computed := "", false
	suggest := func(fallback string) string {
		if !computed {
			narrower, computed = c.narrower(a, r), true
		}
		if narrower != "" {
			return narrower
		}
		return fallback
	}
	for _, p := range rulePaths(a, r) {
		key := keyPath(p.p)
		if why, ok := subtrees[key]; ok && !onlyWhereEmpty(r, key) {
			fallback := "rule only the fields the cluster sets (lint with --live lists what rebasegen generate would write)"
			if key == "status" {
				fallback = "remove the path"
			}
			c.add(Warning, p.at, fmt.Sprintf("path %s rebases a whole subtree: %s", FormatPath(p.p), why), suggest(fallback))
		}
	}
	for i, item := range a.field("resourceMatchers").items() {
		if r.ResourceMatchers[i].AllMatcher != nil {
			c.add(Warning, orElse(item.field("allMatcher"), item), "allMatcher: the rule applies to every resource kapp deploys and hides changes under its paths on all of them",
				suggest("match only the kinds (apiVersionKindMatcher) or resources (kindNamespaceNameMatcher) that need the rule"))
		}
	}
}

// onlyWhereEmpty reports a copy from [new, ...] whose every matcher requires the path to be empty
// (andMatcher with an emptyFieldMatcher on it): it applies only where Git declares nothing there,
// so it cannot hide a value changed in Git.
func onlyWhereEmpty(r ctlconf.RebaseRule, key string) bool {
	if r.Type != "copy" || len(r.Sources) == 0 || r.Sources[0] != ctlres.FieldCopyModSourceNew || len(r.ResourceMatchers) == 0 {
		return false
	}
	for _, m := range r.ResourceMatchers {
		if m.AndMatcher == nil || !slices.ContainsFunc(m.AndMatcher.Matchers, func(m ctlconf.ResourceMatcher) bool {
			return m.EmptyFieldMatcher != nil && keyPath(m.EmptyFieldMatcher.Path) == key
		}) {
			return false
		}
	}
	return true
}

// scaledKinds have a spec.replicas an autoscaler may own.
var scaledKinds = map[string]bool{"Deployment": true, "StatefulSet": true, "ReplicaSet": true, "ReplicationController": true}

// replicas reports a rule that lets the cluster's spec.replicas win on every workload of a kind
// when no autoscaler among the desired objects scales some of them: a replica count changed in
// Git is then silently ignored there. Rules naming each resource (namesOnly) are deliberate (a job
// may scale it) and left alone, unless the autoscaler they were written for is one this deploy
// deletes: the rule then keeps its last scale in force, which nothing changes any more (newcomer7
// N7-8: lint named the deleted autoscaler's own matchers, not this rule).
func (c *checker) replicas(a at, r ctlconf.RebaseRule) {
	if r.Type != "copy" || len(r.Sources) == 0 || r.Sources[0] != ctlres.FieldCopyModSourceExisting {
		return
	}
	wide := slices.ContainsFunc(r.ResourceMatchers, func(m ctlconf.ResourceMatcher) bool { return !namesOnly(m) })
	for _, p := range rulePaths(a, r) {
		if keyPath(p.p) != "spec.replicas" {
			continue
		}
		targets := c.scaleTargets()
		var unscaled, scaled, orphaned []string
		for _, res := range c.matching(c.resources, r.ResourceMatchers) {
			switch {
			case !scaledKinds[res.id.Kind]:
			case targets[res.id]:
				scaled = append(scaled, fmt.Sprintf("kindNamespaceNameMatcher: {kind: %s, namespace: %s, name: %s}", res.id.Kind, res.id.Namespace, res.id.Name))
			case c.unscaled[res.id] != "":
				orphaned = append(orphaned, fmt.Sprintf("%s, whose autoscaler %s this deploy deletes: kapp keeps %s", res.id, c.unscaled[res.id], replicaCounts(res)))
			default:
				unscaled = append(unscaled, res.id.String())
			}
		}
		if len(orphaned) > 0 {
			c.add(Warning, p.at, fmt.Sprintf("path [spec, replicas] takes the cluster's replica count for %s, for as long as the rule is in force",
				strings.Join(orphaned, "; ")),
				"remove the rule with the autoscaler, so that this deploy applies the manifest's replicas (or regenerate the rules after the deploy)")
		}
		if !wide || len(unscaled) == 0 {
			continue
		}
		suggestion := "remove the rule: no autoscaler among the desired objects scales what it matches"
		if len(scaled) > 0 {
			suggestion = "match only what an autoscaler scales: " + strings.Join(scaled, "; ")
		}
		c.add(Warning, p.at, fmt.Sprintf("path [spec, replicas] takes the cluster's replica count for %s no autoscaler among the desired objects scales (%s): a replica count changed in Git is ignored there",
			words.Count(len(unscaled), "resource"), strings.Join(unscaled, ", ")), suggestion)
	}
}

// replicaCounts says what a copy of spec.replicas from the live object keeps instead of the
// manifest's: "2 replicas, not the manifest's 1".
func replicaCounts(res resource) string {
	have, ok := any(nil), false
	if res.live != nil {
		have, ok, _ = unstructured.NestedFieldNoCopy(res.live.Object, "spec", "replicas")
	}
	want, declared, _ := unstructured.NestedFieldNoCopy(res.obj.Object, "spec", "replicas")
	switch {
	case !ok:
		return "the count the autoscaler last set, not the manifest's"
	case !declared:
		return fmt.Sprintf("%v replicas, the count the autoscaler last set", have)
	}
	return fmt.Sprintf("%v replicas, not the manifest's %v", have, want)
}

// scaleTargets are what desired autoscalers scale (classify.ScaleTarget: HorizontalPodAutoscalers
// and KEDA ScaledObjects, which create an HPA at runtime).
func (c *checker) scaleTargets() map[pair.Identity]bool {
	out := map[pair.Identity]bool{}
	for _, res := range c.resources {
		if id, ok := classify.ScaleTarget(res.obj, res.id.Namespace); ok {
			out[id] = true
		}
	}
	return out
}
