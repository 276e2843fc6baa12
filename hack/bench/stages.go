// The stages bench times, their untimed setup and the parse floor they are measured against.

package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	apiextensionsvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/synth"
	"github.com/rebasegen/rebasegen/generator/verdict"
	"github.com/rebasegen/rebasegen/generator/verify"
	"github.com/rebasegen/rebasegen/internal/kappglobal"
)

// Stages, in the order they run and are printed.
const (
	stageParse    = "parse"    // (a) floor: sigs.k8s.io/yaml into unstructured objects
	stageExplain  = "explain"  // (b) generator.Explain
	stageSynth    = "synth"    // (c) generator.Synthesize: generate without verification
	stageKapp     = "kapp"     // (d) kapp deploy's diff of every pair, kapp's own rules only (kappDeploy)
	stageRules    = "rules"    // (e) the same with the generated Config
	stageGenerate = "generate" // (f) generator.Generate: with verification and mutation checks
	stageCheck    = "check"    // (g) generator.Check of the corpus under the rules (c) generates for it
)

// kappDeploy is what stages (d) and (e) time: the diff phase of `kapp deploy` as kapp-controller
// v0.51.0 runs it for an App or PackageInstall (pkg/deploy/kapp.go: `kapp deploy
// --app-metadata-file-output F --prev-app NAME-ctrl -f - --app-changes-max-to-keep=5
// --apply-timeout=5m --app NAME.app --yes`; pkg/config/config.go adds the two defaults, and nothing
// else unless the App sets rawOptions or kapp-controller's config sets kappDeployRawOptions). No
// --diff-changes (-c), so kapp v0.66.0 (cmd/app/deploy.go calculateAndPresentChanges,
// clusterapply/change_set_view.go) prints the summary and never computes the masked text diff;
// it does compute each change's unmasked text diff, to decide the op (diff.ChangeImpl.Op calls
// ConfigurableTextDiff.Full). verify.Ops is exactly that: one change per pair, under the
// last-applied base (--diff-against-last-applied=true, the default; kapp's fallback to the live
// object on an md5 mismatch is part of that change), on one goroutine, kapp's rebase mods as kapp
// runs them. The apply phase (a cluster) is not part of it.
const kappDeploy = "kapp deploy --app-changes-max-to-keep=5 --apply-timeout=5m --yes (kapp-controller v0.51.0's flags: no --diff-changes)"

var allStages = []string{stageParse, stageExplain, stageSynth, stageKapp, stageRules, stageGenerate, stageCheck}

var stageLabel = map[string]string{
	stageParse: "(a) parse floor", stageExplain: "(b) explain", stageSynth: "(c) generate, no verify",
	stageKapp: "(d) kapp engine, no rules", stageRules: "(e) kapp engine, generated rules", stageGenerate: "(f) generate + verify",
	stageCheck: "(g) check, rules of (c)",
}

func inputs(c *corpus) generator.Inputs {
	// the CRD update validation the binary hands the library (cmd/rebasegen inputs): the corpus
	// holds the fixtures' CRDs, which it judges as a user's run does
	return generator.Inputs{Desired: []string{c.DesiredDir}, Live: []string{c.LiveDir}, Namespace: "default",
		CRDUpdate: apiextensionsvalidation.ValidateCustomResourceDefinitionUpdate}
}

// runStage measures one stage on corpus c, after its untimed setup, over as many runs as repeat
// asks for; with -cpuprofile, one profile holds them all (the forced GCs before each run show
// under main.measureOnce).
func runStage(stage string, c *corpus) (measurement, error) {
	m := measurement{Corpus: c.Name, Stage: stage, Pairs: c.Pairs, Input: c.Bytes}
	run, err := prepare(stage, c, &m)
	if err != nil {
		return m, err
	}
	defer profiling(fmt.Sprintf("%s-%d-%s", m.Corpus, m.Pairs, m.Stage))()
	runs, err := repeat(func() (sample, error) {
		kappglobal.ResetYTTMemo() // no run profits from another's ytt results
		m.Note = ""
		s, err := measureOnce(run)
		hits, misses := kappglobal.YTTMemoStats()
		if hits+misses > 0 { // (d) and (e) count kapp's evaluations themselves: no memo there
			m.YTT = hits + misses
		}
		if hits > 0 {
			m.Note = fmt.Sprintf("%s (ytt memo: %d of %d evaluations)", m.Note, hits, hits+misses)
		}
		return s, err
	})
	if err != nil {
		return m, err
	}
	summarize(&m, runs)
	return m, nil
}

// prepare does a stage's untimed setup and returns the work to time; the work notes what it
// found in m.Note.
func prepare(stage string, c *corpus, m *measurement) (run func() (any, error), err error) {
	switch stage {
	case stageParse:
		run = func() (any, error) { return parseFloor(c) }
	case stageExplain:
		run = func() (any, error) {
			rep, set, err := generator.Explain(inputs(c))
			if err == nil && len(rep.Resources) != c.resources() {
				err = fmt.Errorf("%d pairs classified, want %d (created %d, deleted %d)", len(rep.Resources), c.resources(), len(set.Created), len(set.Deleted))
			}
			return rep, err
		}
	case stageSynth:
		run = func() (any, error) {
			g, err := generator.Synthesize(inputs(c), synth.Options{})
			if err == nil {
				m.Note = fmt.Sprintf("%d rules", len(g.Rules))
			}
			return g, err
		}
	case stageKapp, stageRules:
		g, err := generator.Synthesize(inputs(c), synth.Options{})
		if err != nil {
			return nil, err
		}
		pairs := g.Set.Pairs // held as the pipeline holds them: compact, decoded while kapp reads them
		var configs []*unstructured.Unstructured
		for _, cfg := range g.Set.Configs {
			configs = append(configs, cfg.Unstructured)
		}
		if stage == stageRules {
			configs = append(configs, g.Config)
		}
		g = nil
		run = func() (any, error) {
			res, cost, err := verify.Ops(len(pairs), func(i int) (verify.Pair, error) {
				d, l, err := pairs[i].Objects()
				return verify.Pair{Desired: d.Unstructured, Live: l.Unstructured}, err
			}, configs)
			if err == nil {
				keep := 0
				for _, r := range res {
					if r.Op[verify.LastApplied] == verify.OpKeep {
						keep++
					}
				}
				m.Applied, m.YTT = cost.Applied, cost.YTT
				m.Note = fmt.Sprintf("%d/%d pairs keep, %d rebase mods applied", keep, len(res), cost.Applied)
			}
			return res, err
		}
	case stageGenerate:
		run = func() (any, error) {
			g, err := generator.Generate(inputs(c), synth.Options{})
			if err != nil {
				return nil, err
			}
			v := g.Verification
			m.Note = fmt.Sprintf("%d rules (%d ytt), kept %d/%d ghost pairs, %d mutations (%d changed manifests asked about), %.0f%% of kapp's verify time in the rules", len(g.Rules), ytt(g.Rules),
				v.KeptPairs, v.GhostPairs, v.MutationsRun, v.MutationProbes, 100*v.Cost.Rules.Seconds()/max(v.Cost.Diff.Seconds(), 1e-9))
			if !v.OK() {
				return nil, fmt.Errorf("verification failed: %d residual, %d hidden; first: %s", len(v.Residual), len(v.Hidden), first(v.Ghosts(), v.Hidden))
			}
			return g, nil
		}
	case stageCheck:
		g, err := generator.Synthesize(inputs(c), synth.Options{})
		if err != nil {
			return nil, err
		}
		bs, err := yaml.Marshal(g.Config.Object)
		if err != nil {
			return nil, err
		}
		rules := filepath.Join(c.Dir, "rules.yml")
		if err := os.WriteFile(rules, bs, 0o644); err != nil {
			return nil, err
		}
		run = func() (any, error) {
			v, err := generator.Check(inputs(c), []string{rules})
			if err == nil {
				m.Note = fmt.Sprintf("%d pending, %d hidden, %d pairs asked about for the pending changes, %d mutation probes", len(v.Pending), len(v.Hidden), v.PendingProbes, v.MutationProbes)
			}
			return v, err
		}
	default:
		return nil, fmt.Errorf("unknown stage %q", stage)
	}
	return run, nil
}

func ytt(rules []synth.Rule) int {
	n := 0
	for _, r := range rules {
		if r.YTT() {
			n++
		}
	}
	return n
}

func first(residual []verdict.Update, hidden []verdict.Hidden) string {
	if len(residual) > 0 {
		return residual[0].String()
	}
	if len(hidden) > 0 {
		return hidden[0].String()
	}
	return ""
}

// splitDocs splits a YAML stream at its document separators (a line of --- and nothing but
// spaces or tabs after it) by scanning its lines: the plainest reading of the bytes. (A regexp
// split, which the product does not do, made the floor slower than reading needs to be.)
func splitDocs(data []byte) [][]byte {
	var docs [][]byte
	start := 0
	for at := 0; at < len(data); {
		end := bytes.IndexByte(data[at:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += at
		}
		if line := data[at:end]; bytes.HasPrefix(line, []byte("---")) && len(bytes.Trim(line[3:], " \t\r")) == 0 {
			docs = append(docs, data[start:at])
			start = end + 1
		}
		at = end + 1
	}
	if start < len(data) {
		docs = append(docs, data[start:])
	}
	return docs
}

// parseFloor reads every corpus file and parses each document with sigs.k8s.io/yaml into an
// unstructured object, and nothing else: the least any tool reading the YAML must do.
func parseFloor(c *corpus) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	for _, dir := range []string{c.DesiredDir, c.LiveDir} {
		files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
		if err != nil {
			return nil, err
		}
		sort.Strings(files)
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				return nil, err
			}
			for _, doc := range splitDocs(data) {
				if len(bytes.TrimSpace(doc)) == 0 {
					continue
				}
				var m map[string]any
				if err := yaml.Unmarshal(doc, &m); err != nil {
					return nil, fmt.Errorf("%s: %w", f, err)
				}
				out = append(out, &unstructured.Unstructured{Object: m})
			}
		}
	}
	if len(out) != 2*c.resources() {
		return nil, fmt.Errorf("parsed %d objects, want %d", len(out), 2*c.resources())
	}
	return out, nil
}
