package generator

import (
	"bytes"
	"fmt"
	"slices"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/emit"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/generator/synth"
	"github.com/rebasegen/rebasegen/generator/valuesource"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// Generated is the result of generate: rules, and kapp's verdict on them.
type Generated struct {
	Report *classify.Report
	Set    *pair.Set
	synth.Result
	Config       *unstructured.Unstructured // the rules as one kapp Config
	config       load.Object                // Config, for kapp's engine
	kappConfig   ctlconf.Config             // the same Config typed, for the verdict stage's mutation check
	Verification verdict.Verification
	Unpaired     []verdict.Unpaired // desired objects with no live counterpart: not compared
	// At: where the desired value of each changed field was written (Checked.At)
	At map[valuesource.Field]load.Source
	// pinned: the warning among Warnings that rules for objects the package renders without a
	// namespace name pinnedIn, the one they were analysed in (place); "" when none do
	pinned, pinnedIn string
}

// Findings are the verification's findings (verdict.Verification.GenerateFindings), located
// where they were made as check locates them (Checked.Findings).
func (g *Generated) Findings(gate verdict.Gate) []verdict.Finding {
	return located(g.Verification.GenerateFindings(gate, g.Set.VersionWarning), g.At)
}

// Generate classifies, synthesizes rules and verifies them with kapp's engine.
func Generate(in Inputs, opts synth.Options) (*Generated, error) {
	a, err := Analyze(in)
	if err != nil {
		return nil, err
	}
	return a.Generate(opts)
}

// Synthesize is Generate without asking kapp's engine about the rules: g.Verification is zero.
// The benchmarks (hack/bench) time the two apart.
func Synthesize(in Inputs, opts synth.Options) (*Generated, error) {
	a, err := Analyze(in)
	if err != nil {
		return nil, err
	}
	return a.Synthesize(opts)
}

// Generate synthesizes the rules and asks the verdict stage about them: kapp's engine runs on
// every pair; pairs whose differences are all ghosts must be kept under both bases, every other
// update is named with its fields, and a change to any field a rule touches must still be shown
// unless a controller owns it.
func (a *Analysis) Generate(opts synth.Options) (*Generated, error) {
	if err := verdict.NothingPaired(a.Set, verdict.UnpairedOf(a.Set)); err != nil {
		return nil, err
	}
	s, err := a.Synthesize(opts)
	if err != nil {
		return nil, err
	}
	g := *s
	configs := append(slices.Clone(a.Set.Configs), g.config)
	vd, err := verdict.Judge(verdict.Input{Report: a.Report, Set: a.Set, Configs: configs, Rules: verdict.Generated(g.kappConfig, synth.YTTPaths(g.Rules)),
		Deploy: verdict.DeployRulesOf(configs, a.Inputs.Reader), IncludeUnknown: opts.IncludeUnknown, Stage: a.Inputs.Progress.stage})
	if err != nil {
		return nil, err
	}
	v := verdict.Verified(vd, a.Report, opts.IncludeUnknown)
	if a.Inputs.Cost {
		pairs := make([]pair.Pair, len(a.Report.Resources))
		for i, r := range a.Report.Resources {
			pairs[i] = r.Pair
		}
		us := make([]*unstructured.Unstructured, len(configs))
		for i, c := range configs {
			us[i] = c.Unstructured
		}
		if err := verdict.TimeRules(&v, pairs, us); err != nil {
			return nil, err
		}
	}
	g.Verification, g.Unpaired = v, vd.Unpaired
	if g.At, err = valuesource.Located(a.Inputs.Package, a.Inputs.Reader, a.Report, a.Set, vd); err != nil {
		return nil, err
	}
	return &g, nil
}

// Synthesize builds the rules (g.Config included) without verifying them; each option set is
// synthesized once per Analysis.
func (a *Analysis) Synthesize(opts synth.Options) (*Generated, error) {
	if g, ok := a.synthesized[opts]; ok {
		return g, nil
	}
	g := &Generated{Report: a.Report, Set: a.Set, Result: synth.Synthesize(a.Report, opts)}
	var err error
	if g.pinned, g.pinnedIn, err = a.place(&g.Result); err != nil {
		return nil, err
	}
	if w, err := a.unplacedWarning(g.Rules); err != nil {
		return nil, err
	} else if w != "" {
		g.Warnings = append(g.Warnings, w)
	}
	// the verification runs on the rules as the file holds them (newcomer13 N13-7: a name kapp
	// never matched was written after kind-wide rules were verified)
	if g.Rules, err = synth.AsWritten(g.Rules, a.Report, opts.OwnResources); err != nil {
		return nil, err
	}
	if g.kappConfig, g.config, err = generatedConfig(g.Rules); err != nil {
		return nil, err
	}
	g.Config = g.config.Unstructured
	if a.synthesized == nil {
		a.synthesized = map[synth.Options]*Generated{}
	}
	a.synthesized[opts] = g
	return g, nil
}

// generatedConfig is the Config of the rules, typed (emit.Config) and as the object kapp's engine reads:
// kapp builds its rules (ctlconf.Conf) only from resources, so the engine gets the file generate
// writes, as kapp will read it.
func generatedConfig(rules []synth.Rule) (ctlconf.Config, load.Object, error) {
	cfg, err := emit.Config(rules)
	if err != nil {
		return ctlconf.Config{}, load.Object{}, err
	}
	var buf bytes.Buffer
	if err := emit.WriteRules(&buf, rules, emit.Header{}); err != nil {
		return ctlconf.Config{}, load.Object{}, err
	}
	objs, err := load.Bytes("generated", buf.Bytes())
	if err != nil {
		return ctlconf.Config{}, load.Object{}, fmt.Errorf("generated Config does not parse (a bug): %w", err)
	}
	return cfg, objs[0], nil
}
