package verdict

import (
	"fmt"
	"slices"
	"strings"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	ctldgraph "carvel.dev/kapp/pkg/kapp/diffgraph"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/internal/kappconv"
	"github.com/rebasegen/rebasegen/internal/kappgraph"
)

// DeployFails is a resource of this deploy on which kapp's deploy fails, whatever the rules: its
// change graph (change groups and rules) cannot be built or ordered, its update strategy is one
// kapp does not know, or a Config's wait or preflight rules fail it (Config: its preflight
// registry refuses them, or the CRDUpgradeSafety check they enable refuses a CRD). Reason is kapp's.
type DeployFails struct {
	Resource pair.Identity
	Reason   string
	// Whole: Reason is the whole evidence, not the change graph's: a Config's wait rule kapp fails
	// to wait on the resource with, its preflight rules kapp refuses before applying it, or a name
	// the API server refuses to create
	Whole bool
	// Weak: the evidence rests on what the captured live object may not show yet (waitJudge): a
	// warning, not failing the gate
	Weak bool
}

// updateStrategies are the values of kapp.k14s.io/update-strategy kapp's update knows
// (clusterapply/add_or_update_change.go); any other fails the update.
var updateStrategies = []string{"", "fallback-on-replace", "always-replace", "skip"}

// deployFails builds kapp's change graph over every change of this deploy, as kapp's deploy does
// (clusterapply ClusterChangeSet.Calculate): upserts for what it creates or updates, deletes for
// what it deletes, noops for what it keeps. Change rules only bind the changes that happen, so a
// cycle may need the manifest's change to appear: only the deploy's changes can tell. deploy are
// the wait and preflight rules in force: kapp sets its preflight checks from them where the
// deploy changes anything, naming here its first change.
func (v *Verdict) deployFails(set *pair.Set, configs []*unstructured.Unstructured, deploy DeployRules) ([]DeployFails, error) {
	updated := map[pair.Identity]bool{}
	for _, u := range v.Updates {
		updated[u.Resource] = true
	}
	var changes []kappgraph.Change
	var ids []pair.Identity
	var out []DeployFails
	waiting := waitJudge(deploy.Waits)
	if set.Deploy.NoWait != "" { // kapp deploy --wait=false waits on nothing
		waiting = func(ctlres.Resource, *unstructured.Unstructured) (string, bool) { return "", false }
	}
	add := func(id pair.Identity, obj, live *unstructured.Unstructured, op ctldgraph.ActualChangeOp) {
		res := ctlres.NewResourceUnstructured(*obj, ctlres.ResourceType{})
		changes, ids = append(changes, kappgraph.Change{Res: res, Operation: op}), append(ids, id)
		if s, ok := obj.GetAnnotations()[kappconv.UpdateStrategy]; ok && op == ctldgraph.ActualChangeOpUpsert && updated[id] && !slices.Contains(updateStrategies, s) {
			out = append(out, DeployFails{Resource: id, Reason: fmt.Sprintf("it fails when it reaches this update, applying none of it: Unknown update strategy: %s", s)})
		}
		if op != ctldgraph.ActualChangeOpDelete {
			if why, weak := waiting(res, live); why != "" {
				out = append(out, DeployFails{Resource: id, Reason: why, Whole: true, Weak: weak})
			}
		}
	}
	for _, p := range set.Pairs {
		desired, live, err := p.Objects()
		if err != nil {
			return nil, err
		}
		op := ctldgraph.ActualChangeOpNoop
		if updated[p.ID] {
			op = ctldgraph.ActualChangeOpUpsert
		}
		add(p.ID, desired.Unstructured, live.Unstructured, op)
	}
	for _, d := range set.Created {
		o, err := d.Object()
		if err != nil {
			return nil, err
		}
		id := pair.Identity{Group: d.GroupKind().Group, Kind: d.Kind, Namespace: d.Namespace, Name: d.Name}
		if refused := classify.NameRefused(o.Unstructured); refused != "" {
			out = append(out, DeployFails{Resource: id, Whole: true,
				Reason: "kapp's deploy fails when it creates it: the API server refuses " + refused + "; give it a valid name"})
		}
		add(id, o.Unstructured, nil, ctldgraph.ActualChangeOpUpsert)
	}
	for _, d := range set.Deleted {
		o, err := d.Object()
		if err != nil {
			return nil, err
		}
		add(pair.Identity{Group: d.GroupKind().Group, Kind: d.Kind, Namespace: d.Namespace, Name: d.Name}, o.Unstructured, nil, ctldgraph.ActualChangeOpDelete)
	}
	if i := slices.IndexFunc(changes, func(c kappgraph.Change) bool { return c.Op() != ctldgraph.ActualChangeOpNoop }); i >= 0 {
		if why := preflightFails(deploy.Preflights); why != "" {
			out = append(out, DeployFails{Resource: ids[i], Reason: "kapp's deploy fails before it applies anything, this change among them: " + why, Whole: true})
		}
		var crds []pair.Pair
		for _, p := range set.Pairs {
			if updated[p.ID] && p.ID.Group == "apiextensions.k8s.io" && p.ID.Kind == "CustomResourceDefinition" {
				crds = append(crds, p)
			}
		}
		refused, err := crdUpgradeRefused(deploy.Preflights, crds, configs)
		if err != nil {
			return nil, err
		}
		out = append(out, refused...)
	}
	var rs []ctlres.Resource
	for _, c := range configs {
		rs = append(rs, ctlres.NewResourceUnstructured(*c, ctlres.ResourceType{}))
	}
	_, conf, err := ctlconf.NewConfFromResourcesWithDefaults(rs)
	if err != nil {
		return nil, fmt.Errorf("kapp config: %w", kappconv.Readable(err))
	}
	gerr := kappgraph.Fails(changes, conf)
	if gerr == nil {
		return out, nil
	}
	// kapp names no resource for a bad annotation and every resource of a cycle: the changes
	// failing on their own are the culprits, else those kapp's message names.
	var named []pair.Identity
	for i, c := range changes {
		if kappgraph.Fails([]kappgraph.Change{c}, conf) != nil {
			named = append(named, ids[i])
		}
	}
	if len(named) == 0 {
		for i, c := range changes {
			if c.Op() != ctldgraph.ActualChangeOpNoop && strings.Contains(gerr.Error(), "["+c.Resource().Description()+"]") {
				named = append(named, ids[i])
			}
		}
	}
	if len(named) == 0 {
		named = append(named, pair.Identity{})
	}
	for _, id := range named {
		out = append(out, DeployFails{Resource: id, Reason: "its change graph fails before kapp applies anything: " + gerr.Error()})
	}
	return out, nil
}

// Evidence says why kapp's deploy fails on the resource.
func (d DeployFails) Evidence() string {
	if d.Whole {
		return d.Reason
	}
	return "kapp's deploy refuses this deploy's kapp.k14s.io/change-group, change-rule or update-strategy annotations or a Config's changeGroupBindings/changeRuleBindings: " + d.Reason
}
