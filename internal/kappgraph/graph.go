// Package kappgraph asks kapp's own change graph (diffgraph.NewChangeGraph) whether kapp's deploy
// can order a deploy's changes under a Config's change group and change rule bindings: check
// judges this deploy's changes, lint the bindings it reads.
package kappgraph

import (
	"fmt"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	ctldgraph "carvel.dev/kapp/pkg/kapp/diffgraph"
	"carvel.dev/kapp/pkg/kapp/logger"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"
)

// Change is one change of a deploy as kapp's change graph takes it.
type Change struct {
	Res       ctlres.Resource
	Operation ctldgraph.ActualChangeOp
}

func (c Change) Resource() ctlres.Resource    { return c.Res }
func (c Change) Op() ctldgraph.ActualChangeOp { return c.Operation }

// Fails is kapp's error building its change graph over changes under conf's bindings (a cycle,
// an unknown change rule, an invalid change group name), on which its deploy stops before it
// applies anything; nil where kapp builds it.
func Fails(changes []Change, conf ctlconf.Conf) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("kapp panicked: %v", p)
		}
	}()
	cs := make([]ctldgraph.ActualChange, len(changes))
	for i, c := range changes {
		cs[i] = c
	}
	_, err = ctldgraph.NewChangeGraph(cs, conf.ChangeGroupBindings(), conf.ChangeRuleBindings(), logger.NewNoopLogger())
	return err
}
