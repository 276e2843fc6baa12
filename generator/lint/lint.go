// Package lint checks kapp Config documents, hand-written or generated, for rebase rules that
// kapp reads differently from what their author meant: keys it silently ignores, matchers that
// never match, rules that make kapp panic or do nothing, rules kapp already has, and rules broad
// enough to hide real changes. Every finding names the file and line of the offending key.
//
// kapp parses Configs leniently (sigs.k8s.io/yaml into its own structs), so the checks use
// kapp's structs and matcher code, not a copy of its schema.
package lint

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/emit"
	"github.com/rebasegen/rebasegen/generator/kappcover"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/generator/synth"
	"github.com/rebasegen/rebasegen/internal/kappconv"
	"github.com/rebasegen/rebasegen/internal/kappglobal"
	"github.com/rebasegen/rebasegen/internal/kappmatch"
	"github.com/rebasegen/rebasegen/internal/kappprep"
	"github.com/rebasegen/rebasegen/rulesets"
)

type Severity string

const (
	Error   Severity = "error"   // kapp rejects the Config, panics, or the rule does not do what it says
	Warning Severity = "warning" // the rule works but is redundant, stale or broader than needed
)

// Finding is one problem. Rule is the 0-based index in the Config's rebaseRules (kapp counts
// from 0 in its own errors), -1 for a problem with the document itself.
type Finding struct {
	Severity   Severity `json:"severity"`
	File       string   `json:"file"`
	Line       int      `json:"line,omitempty"` // none where no line is known
	Rule       int      `json:"rule"`
	Message    string   `json:"message"`
	Suggestion string   `json:"suggestion"`
}

// Options say what to lint and against what. Without Set only the Configs themselves are checked.
type Options struct {
	Rules  []string     // files or directories holding kapp Configs or ConfigMaps labelled kapp.k14s.io/config
	Reader *load.Reader // reads Rules ("-": stdin)
	// Set holds the objects the rules are for: desired objects (paired or to be created), CRDs.
	Set *pair.Set
	// Desired: desired objects were given, so every rule and matcher must match one.
	Desired bool
	// Ruleset names the cluster-scoped kinds; nil: the built-in rulesets.
	Ruleset *rulesets.Ruleset
	// Generated is what rebasegen generate writes for the pairs (nil without live objects): the
	// narrower paths suggested for a broad rule.
	Generated *synth.Result
	// Hidden is the verdict stage's judgement of the rules in force against the paired objects
	// (nil without live objects): each rule hiding a change made in Git is an error.
	Hidden []Hidden
	// Rendered are rule paths ytt renders (a ytt-format file, a package's config directory),
	// linted as rendered: line positions are unknown there.
	Rendered []Rendered
	// KappController: kapp-controller deploys the rules with the package (--package-cr), with
	// its kapp (kappconv.KappControllerKapp), not the one rebasegen links. A rules Secret's
	// Configs are always kapp-controller's.
	KappController bool
}

// Rendered is a rule path's objects as ytt rendered them.
type Rendered struct {
	Path    string
	Line    int // where in Path the template starts (a rules Secret's document), 0 when unknown
	Objects []load.Object
	// Replaces: the rules Secret, written in Path, the Objects are rendered from with a package,
	// which lint then does not read as written (zero: none)
	Replaces load.Source
}

// SecretKey is where a rules Secret (rebasegen generate --output secret) holds its Configs, in
// stringData or data: the file kapp-controller adds to the package's ytt step.
const SecretKey = "rebase-rules.yml"

// Check lints every kapp Config found under opts.Rules. The error is for unreadable input only.
func Check(opts Options) ([]Finding, error) {
	kappglobal.Prepare() // kapp's parser checks minimumRequiredVersion against its own version
	docs, findings, err := readConfigs(opts.Rules, opts.Reader, opts.Rendered)
	if err != nil {
		return nil, err
	}
	env, err := newEnv(opts, docs)
	if err != nil {
		return nil, err
	}
	if len(docs) == 0 && len(findings) == 0 {
		return nil, noConfigs(opts)
	}
	var pkg []load.Object
	if opts.Set != nil {
		pkg = opts.Set.Configs
	}
	inert := readInert(docs, pkg)
	env.inertLabels, env.inertRules = inert.labels, inert.rules
	for _, d := range docs {
		c := &checker{env: env, doc: d, rule: -1}
		c.config()
		findings = append(findings, c.findings...)
	}
	sort.SliceStable(findings, func(i, j int) bool {
		a, b := findings[i], findings[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Message < b.Message
	})
	return findings, nil
}

// NoConfigs is Check's refusal of rule paths holding nothing to lint (an empty, comment-only,
// `---`-only or null file: a failed `kubectl ... > rules.yml`), nil when they hold any: check
// refuses them with it before judging them as no rules at all, every ghost diff left.
func NoConfigs(opts Options) error {
	docs, findings, err := readConfigs(opts.Rules, opts.Reader, opts.Rendered)
	if err != nil || len(docs) > 0 || len(findings) > 0 {
		return err
	}
	return noConfigs(opts)
}

func noConfigs(opts Options) error {
	return fmt.Errorf("no kapp Config (apiVersion %s, kind %s), no ConfigMap labelled %s and no Secret holding %s in %v%s", kappconv.ConfigAPIVersion, kappconv.ConfigKind, kappconv.ConfigLabel, SecretKey, opts.Rules, argoCDHint(opts))
}

// Count returns the number of errors and warnings.
func Count(fs []Finding) (errors, warnings int) {
	for _, f := range fs {
		if f.Severity == Error {
			errors++
		} else {
			warnings++
		}
	}
	return errors, warnings
}

// env is what the rules are checked against.
type env struct {
	scope     pair.Scope // cluster-scoped kinds: the rulesets' and the CRDs'
	desired   bool       // --desired given: rules and matchers must match something
	resources []resource // desired objects, namespace defaulted as kapp prepares them
	// byName: the resources by kind, namespace and name as kapp reads them, the only ones a
	// kindNamespaceNameMatcher (which compares those three) or a matcher requiring it can match
	byName map[[3]string][]resource
	gen    *synth.Result
	// unscaled: what the live autoscalers this deploy deletes scale (pair.Set.Deleted), to the
	// autoscaler's kind and namespace/name
	unscaled map[pair.Identity]string
	defaults []ctlconf.RebaseRule
	configs  []ctlres.Resource // the package's Configs, which kapp deploys with the rules
	hiddenBy []Hidden
	// kappController: Options.KappController
	kappController bool
	// inertLabels, inertRules: across the Configs in force, additionalLabels that make kapp apply
	// nothing as annotations, and ownership label rules writing labels into metadata.annotations
	inertLabels, inertRules []inertSource
}

type resource struct {
	id   pair.Identity
	obj  *unstructured.Unstructured
	kapp ctlres.Resource
	// rebased: kapp with the live object rebases the resource with its built-in rules before the
	// Configs' rules (config.Conf.RebaseMods), and matches each rule on the resource as it is
	// then: a matcher may hold only there (an emptyFieldMatcher on a field they copy from the
	// live object); made when first asked, for a matcher the prepared resource does not satisfy;
	// nil without a live object
	rebased *rebasedResource
	live    *unstructured.Unstructured // the live object it is paired with (generate has rules for it), nil when none
}

func newEnv(opts Options, docs []*doc) (*env, error) {
	e := &env{desired: opts.Desired, gen: opts.Generated, hiddenBy: opts.Hidden, kappController: opts.KappController}
	var err error
	if e.defaults, err = kappmatch.BuiltinRebaseRules(); err != nil {
		return nil, err
	}
	rs := opts.Ruleset
	if rs == nil {
		if rs, err = rulesets.Load(); err != nil {
			return nil, err
		}
	}
	set := opts.Set
	if set == nil {
		e.scope, err = pair.NewScope(rs, nil)
		return e, err
	}
	if e.scope, err = pair.NewScope(rs, set.CRDs); err != nil {
		return nil, err
	}
	for _, c := range set.Configs {
		e.configs = append(e.configs, ctlres.NewResourceUnstructured(*c.Unstructured, ctlres.ResourceType{}))
	}
	prep, err := prepConf(set.Configs, docs)
	if err != nil {
		return nil, err
	}
	builtin, err := kappcover.New(nil, false)
	if err != nil {
		return nil, err
	}
	// matchers see each resource as kapp prepared it (its labels added), as kapp's rules do
	add := func(id pair.Identity, d load.Doc, live *load.Doc) error {
		o, err := d.Object()
		if err != nil {
			return err
		}
		var l *unstructured.Unstructured
		if live != nil {
			lo, err := live.Object()
			if err != nil {
				return err
			}
			l = lo.Unstructured
		}
		prepared, err := kappprep.Object(prep, o.Unstructured, kappprep.AppLabel(l))
		if err != nil {
			return fmt.Errorf("%s: %w", o.Source, err)
		}
		res := newResource(id, o.Unstructured, prepared, l)
		if l != nil {
			res.rebased = &rebasedResource{rebase: func() (*unstructured.Unstructured, error) { return builtin.Rebase(prepared, l) }}
		}
		e.resources = append(e.resources, res)
		return nil
	}
	for _, p := range set.Pairs {
		if err := add(p.ID, p.Desired, &p.Live); err != nil {
			return nil, err
		}
	}
	for _, d := range set.Created {
		id := pair.Identity{Group: d.GroupKind().Group, Kind: d.Kind, Namespace: d.Namespace, Name: d.Name}
		if err := add(id, d, nil); err != nil {
			return nil, err
		}
	}
	e.unscaled = map[pair.Identity]string{}
	for _, d := range set.Deleted {
		o, err := d.Object()
		if err != nil {
			return nil, err
		}
		if id, ok := classify.ScaleTarget(o.Unstructured, d.Namespace); ok {
			e.unscaled[id] = d.Kind + " " + d.Namespace + "/" + d.Name
		}
	}
	e.byName = map[[3]string][]resource{}
	for _, r := range e.resources {
		k := [3]string{r.kapp.Kind(), r.kapp.Namespace(), r.kapp.Name()}
		e.byName[k] = append(e.byName[k], r)
	}
	return e, nil
}

// rebasedResource is a resource as kapp's built-in rules rebase it, made once when first asked.
type rebasedResource struct {
	once   sync.Once
	rebase func() (*unstructured.Unstructured, error)
	res    ctlres.Resource
}

// resource is nil where kapp's rebase fails: check reports that failure, naming the rule.
func (r *rebasedResource) resource() ctlres.Resource {
	r.once.Do(func() {
		if u, err := r.rebase(); err == nil {
			r.res = ctlres.NewResourceUnstructured(*u, ctlres.ResourceType{})
		}
	})
	return r.res
}

// newResource is the resource of desired object u, prepared as kapp prepares it.
func newResource(id pair.Identity, u, prepared, live *unstructured.Unstructured) resource {
	return resource{id: id, obj: u, kapp: ctlres.NewResourceUnstructured(*prepared, ctlres.ResourceType{}), live: live}
}

// prepConf is kapp's built-in Config, the package's own Configs and those linted (docs), which kapp
// deploys with the package (cmd/app/deploy.go newResources reads every Config it deploys): how
// kapp prepares the resources it deploys (their ownership and label scoping rules, additional
// labels). A linted Config kapp cannot read is left out (it is a finding of its own).
func prepConf(configs []load.Object, docs []*doc) (ctlconf.Conf, error) {
	var rs []ctlres.Resource
	for _, c := range configs {
		rs = append(rs, ctlres.NewResourceUnstructured(*c.Unstructured, ctlres.ResourceType{}))
	}
	for _, d := range docs {
		res := ctlres.NewResourceUnstructured(unstructured.Unstructured{Object: d.obj}, ctlres.ResourceType{})
		if _, _, err := ctlconf.NewConfFromResources([]ctlres.Resource{res}); err == nil {
			rs = append(rs, res)
		}
	}
	_, conf, err := ctlconf.NewConfFromResourcesWithDefaults(rs)
	if err != nil {
		return ctlconf.Conf{}, fmt.Errorf("reading the package's kapp Configs: %w", kappconv.Readable(err))
	}
	return conf, nil
}

// argoCDHint points an Argo CD user whose rules are Argo CD's (an Application's
// ignoreDifferences, argocd-cm) to the command that judges them: lint reads kapp's rules only.
func argoCDHint(opts Options) string {
	objs, _ := load.Paths(opts.Rules, opts.Reader) // read once already: the error path only
	for _, o := range objs {
		argo := strings.HasPrefix(o.GetAPIVersion(), "argoproj.io/") && o.GetKind() == "Application" ||
			o.GetAPIVersion() == "v1" && o.GetKind() == "ConfigMap" && o.GetName() == "argocd-cm"
		if argo {
			return fmt.Sprintf(": %s %s holds Argo CD's ignoreDifferences, which `rebasegen check --target argocd --rules %s` lints and judges", o.GetKind(), o.GetName(), emit.ShellQuote(o.Source.File))
		}
	}
	return ""
}
