package kappglobal

import (
	"errors"
	"time"

	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"carvel.dev/kapp/pkg/kapp/yttresmod"

	"github.com/rebasegen/rebasegen/generator/yttrender"
	"github.com/rebasegen/rebasegen/internal/yttreads"
)

// runYTT evaluates mod on res within the time budget, holding the token: kapp's engine evaluates
// a rule on every resource it matches, for both bases and every mutation, and a rule that loops
// on one resource alone (by its name) hung check for ever. The evaluation works on a copy, which
// is copied into res when it ends in time: an abandoned one must not write into res after
// this returns.
func runYTT(mod yttresmod.OverlayContractV1Mod, res ctlres.Resource, srcs map[ctlres.FieldCopyModSource]ctlres.Resource) error {
	work := res.DeepCopy()
	if err := withinBudget(mod.OverlayYAML, res, srcs, func() error { return applyYTT(mod, work, srcs) }); err != nil {
		return err
	}
	res.DeepCopyIntoFrom(work)
	return nil
}

// TraceYTT is what a ytt rebase rule's program reads of srcs evaluated on res (yttreads.Eval on the
// bytes kapp's yttresmod gives ytt), within the budgets kapp's evaluations of the rule get here
// (runYTT): in the rule child where this executable has one, holding the token, within the time
// budget. An evaluation over a budget fails every later one as kapp's own would.
func TraceYTT(overlay string, res ctlres.Resource, srcs map[ctlres.FieldCopyModSource]ctlres.Resource) (yttreads.Trace, error) {
	resYAML, valuesYAML, err := yttFiles(res, srcs)
	if err != nil {
		return yttreads.Trace{}, err
	}
	done := make(chan yttreads.Trace, 1)
	err = withinBudget(overlay, res, srcs, func() error {
		var tr yttreads.Trace
		var err error
		if yttrender.RulesInChild() {
			tr, err = yttrender.TraceRuleInChild(overlay, resYAML, valuesYAML, memoryBudget())
		} else {
			tr, err = yttreads.Eval(overlay, resYAML, valuesYAML)
		}
		done <- tr
		return err
	})
	if err != nil {
		return yttreads.Trace{}, err
	}
	return <-done, nil
}

// withinBudget runs eval, an evaluation of the ytt rule overlay on res, within the time budget,
// holding the token; eval's error is withheld where res or a source is a Secret.
func withinBudget(overlay string, res ctlres.Resource, srcs map[ctlres.FieldCopyModSource]ctlres.Resource, eval func() error) error {
	select {
	case yttToken <- struct{}{}:
	case <-yttAbandoned:
		return yttOverrun
	}
	select {
	case <-yttAbandoned: // the token came back from an evaluation abandoned meanwhile
		<-yttToken
		return yttOverrun
	default:
	}
	timeout := time.Duration(yttTimeout.Load())
	if timeout <= 0 {
		timeout = yttrender.RenderTimeout
	}
	done := make(chan error, 1)
	go func() {
		err := eval()
		<-yttToken
		done <- err
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case err := <-done:
		if err == nil {
			return nil
		}
		if m := (*yttrender.MemoryExceeded)(nil); errors.As(err, &m) {
			// as an evaluation over its time: every later one fails with it too, so that no
			// caller that takes a failing rule for kapp's to report goes on without it
			abandonOnce.Do(func() {
				yttOverrun = &YTTOverBudget{Overlay: overlay, Group: res.APIGroup(), Kind: res.Kind(), Namespace: res.Namespace(), Name: res.Name(), Memory: m.Memory}
				close(yttAbandoned)
			})
			return yttOverrun
		}
		if holdsSecret(res, srcs) {
			return &YTTWithheld{Overlay: overlay, Group: res.APIGroup(), Kind: res.Kind(), Namespace: res.Namespace(), Name: res.Name()}
		}
		return err
	case <-timer.C:
		abandonOnce.Do(func() {
			yttOverrun = &YTTOverrun{Overlay: overlay, Group: res.APIGroup(), Kind: res.Kind(), Namespace: res.Namespace(), Name: res.Name(), Timeout: timeout}
			close(yttAbandoned)
		})
		yttrender.StopRuleChild() // an evaluation in the rule child stops there; one in this process runs on
		return yttOverrun
	}
}
