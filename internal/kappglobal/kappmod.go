package kappglobal

import (
	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"carvel.dev/kapp/pkg/kapp/yttresmod"
)

// KappMod is mod as kapp's own deploy runs it, for measuring what the rules cost kapp (the bench's
// stages (d) and (e), generate --cost): kapp's copy rule as kapp wrote it (not linearCopy), and its
// ytt rule with no memo, no time or memory budget and no rule child, under the one ytt token only
// (ytt's package-level state). Only for rules that already ran within their budgets on the same
// resources, or that rebasegen wrote.
func KappMod(mod ctlres.ResourceModWithMultiple) ctlres.ResourceModWithMultiple {
	if y, ok := mod.(yttresmod.OverlayContractV1Mod); ok {
		return kappYTT{y}
	}
	return mod
}

type kappYTT struct{ yttresmod.OverlayContractV1Mod }

func (k kappYTT) ApplyFromMultiple(res ctlres.Resource, srcs map[ctlres.FieldCopyModSource]ctlres.Resource) error {
	select {
	case yttToken <- struct{}{}:
	case <-yttAbandoned: // an abandoned evaluation keeps the token for ever
		return yttOverrun
	}
	defer func() { <-yttToken }()
	return k.OverlayContractV1Mod.ApplyFromMultiple(res, srcs)
}

// IsYTT reports whether mod is a ytt rebase rule, as kapp, KappMod or SerialYTT runs it.
func IsYTT(mod ctlres.ResourceModWithMultiple) bool {
	switch mod.(type) {
	case yttresmod.OverlayContractV1Mod, kappYTT, serialYtt:
		return true
	}
	return false
}
