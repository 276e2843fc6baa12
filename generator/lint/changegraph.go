package lint

import (
	"fmt"
	"slices"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	ctldgraph "carvel.dev/kapp/pkg/kapp/diffgraph"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/internal/kappconv"
	"github.com/rebasegen/rebasegen/internal/kappgraph"
)

// bindingKeys are the keys of a Config kapp's change graph reads.
var bindingKeys = []string{"changeGroupBindings", "changeRuleBindings"}

// changeGraph reports the first of this document's changeGroupBindings and changeRuleBindings
// entries with which kapp's change graph fails over a deploy changing every desired object, with
// kapp's built-in Config and the package's Configs (kapp's deploy stops there before it applies
// anything: a cycle, an unknown change rule, an invalid change group name). Entries are added in
// turn, so the one named is the one the graph fails on: for a cycle, the binding closing it.
func (c *checker) changeGraph(root at) {
	if len(c.resources) == 0 {
		return
	}
	var lists [][]any
	total := 0
	for _, k := range bindingKeys {
		l, _ := root.field(k).v.([]any)
		lists, total = append(lists, l), total+len(l)
	}
	if total == 0 {
		return
	}
	changes := make([]kappgraph.Change, len(c.resources))
	for i, r := range c.resources {
		changes[i] = kappgraph.Change{Res: r.kapp, Operation: ctldgraph.ActualChangeOpUpsert}
	}
	fails := func(n []int) error {
		cfg := map[string]any{"apiVersion": kappconv.ConfigAPIVersion, "kind": kappconv.ConfigKind}
		for i, k := range bindingKeys {
			cfg[k] = lists[i][:n[i]]
		}
		rs := append(slices.Clone(c.configs), ctlres.NewResourceUnstructured(unstructured.Unstructured{Object: cfg}, ctlres.ResourceType{}))
		_, conf, err := ctlconf.NewConfFromResourcesWithDefaults(rs)
		if err != nil {
			return nil // kapp refuses the Config: a finding of its own
		}
		return kappgraph.Fails(changes, conf)
	}
	n := make([]int, len(bindingKeys))
	if fails(n) != nil {
		return // the deploy fails without this document's bindings
	}
	for i, k := range bindingKeys {
		items := root.field(k).items()
		for j := range lists[i] {
			n[i] = j + 1
			if err := fails(n); err != nil && j < len(items) {
				c.add(Error, items[j], fmt.Sprintf("%s[%d] (%s): a deploy changing the desired objects fails on it in kapp before it applies anything: %s", k, j, describe(items[j]), err),
					"fix or remove the binding: kapp v"+kappconv.Kapp+" builds its change graph (diffgraph.NewChangeGraph) over every change of a deploy")
				return
			}
		}
	}
}
