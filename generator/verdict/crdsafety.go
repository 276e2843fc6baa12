package verdict

import (
	"context"
	"fmt"
	"slices"
	"strings"

	cmdcore "carvel.dev/kapp/pkg/kapp/cmd/core"
	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	ctldgraph "carvel.dev/kapp/pkg/kapp/diffgraph"
	"carvel.dev/kapp/pkg/kapp/logger"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"

	"github.com/rebasegen/rebasegen/generator/lint"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/generator/verify"
	"github.com/rebasegen/rebasegen/internal/kappgraph"
)

// liveCluster is the cluster kapp's preflight checks read: the live objects, nothing else.
type liveCluster struct {
	cmdcore.DepsFactory // never called: the CRDUpgradeSafety check asks for the dynamic client only
	client              dynamic.Interface
}

func (c liveCluster) DynamicClient(cmdcore.DynamicClientOpts) (dynamic.Interface, error) {
	return c.client, nil
}

// crdUpgradeRefused are the CRDs this deploy updates on which kapp's CRDUpgradeSafety preflight
// check refuses it, before it applies anything, with kapp's reason. kapp's deploy with changes
// runs the check where its preflight rules name it (no --preflight flag: the registry's
// SetConfig enables the checks the rules name) and the registry takes them; kapp's own code
// (Preflight.Run) compares each CRD the deploy upserts, as the rules rebase it, with the one the
// cluster holds (here the live object). The object kapp applies depends on the base it diffs
// against (verify.Rebased): a refusal under either base fails the deploy, the base named.
func crdUpgradeRefused(rules []PreflightRule, crds []pair.Pair, configs []*unstructured.Unstructured) ([]DeployFails, error) {
	if len(crds) == 0 || len(rules) == 0 {
		return nil, nil
	}
	var taken []ctlconf.PreflightRule
	for _, r := range rules {
		taken = append(taken, r.rule)
	}
	var lives []runtime.Object
	for _, p := range crds {
		_, live, err := p.Objects()
		if err != nil {
			return nil, err
		}
		lives = append(lives, live.DeepCopy())
	}
	registry, check := lint.KappPreflights(liveCluster{client: dynamicfake.NewSimpleDynamicClient(runtime.NewScheme(), lives...)})
	if lint.SetPreflights(registry, taken) != nil || !check.Enabled() {
		return nil, nil // a refused config is reported by preflightFails
	}
	bases := verify.Bases()
	news := make([][]*unstructured.Unstructured, len(crds))
	for i := range news {
		news[i] = make([]*unstructured.Unstructured, len(bases))
	}
	err := verify.Rebased(len(crds), func(i int) (verify.Pair, error) {
		desired, live, err := crds[i].Objects()
		if err != nil {
			return verify.Pair{}, err
		}
		return pairOf(desired, live), nil
	}, configs, func(i int, b verify.Base, obj map[string]any, err error) {
		if err == nil && obj != nil { // kapp failing on the pair is reported on the verification
			news[i][slices.Index(bases, b)] = &unstructured.Unstructured{Object: asDecoded(obj)}
		}
	})
	if err != nil {
		return nil, err
	}
	var out []DeployFails
	for i, p := range crds {
		for bi, b := range bases {
			if news[i][bi] == nil {
				continue
			}
			change := kappgraph.Change{Res: ctlres.NewResourceUnstructured(*news[i][bi], ctlres.ResourceType{}), Operation: ctldgraph.ActualChangeOpUpsert}
			if err := runCheck(check.Run, change); err != nil {
				out = append(out, DeployFails{Resource: p.ID, Whole: true, Reason: fmt.Sprintf(
					"kapp's deploy fails before it applies anything (its CRDUpgradeSafety preflight check, enabled by the preflight rules, diffing against %s): preflight checks failed: running preflight check \"CRDUpgradeSafety\": %s",
					b, strings.ReplaceAll(err.Error(), "\n", "; "))})
				break
			}
		}
	}
	return out, nil
}

// runCheck runs a preflight check of kapp's on the change graph of change alone, a panic of
// kapp's an error.
func runCheck(run func(context.Context, *ctldgraph.ChangeGraph) error, change kappgraph.Change) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("kapp panicked: %v", p)
		}
	}()
	graph, err := ctldgraph.NewChangeGraph([]ctldgraph.ActualChange{change}, nil, nil, logger.NewNoopLogger())
	if err != nil {
		return err
	}
	return run(context.Background(), graph)
}
