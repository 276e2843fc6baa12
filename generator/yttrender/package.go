package yttrender

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"carvel.dev/ytt/pkg/cmd/template"
	"carvel.dev/ytt/pkg/cmd/ui"
	"carvel.dev/ytt/pkg/filepos"
	"carvel.dev/ytt/pkg/files"
	"carvel.dev/ytt/pkg/yamlmeta"
	"sigs.k8s.io/yaml"

	"github.com/rebasegen/rebasegen/generator/load"
)

// Package says how to render a ytt package config directory, as kapp-controller's ytt template
// step does: every file of the directories, data values files, and key=value data values.
type Package struct {
	Dirs        []string // ytt -f: directories or files
	ValuesFiles []string // ytt --data-values-file
	Values      []string // ytt -v KEY=VAL
	ValuesYAML  []string // ytt --data-value-yaml KEY=VAL
	CR          string   // a kapp-controller Package whose template is fetched inline
	// Templates are ytt templates given as text, rendered together with the values alone
	// (RenderFiles).
	Templates []Template `json:",omitempty"`
	// Inline are files of kapp-controller's inline directory (RenderInline), given to ytt after the
	// package's paths; Source names them in messages.
	Inline []Template `json:",omitempty"`
	// Source names the Templates, or the Inline files, in messages and Sources.
	Source string `json:",omitempty"`
	// What errors call it: "package" when empty; "rules file" or "rules directory" for a --rules
	// path of ytt templates.
	What string `json:",omitempty"`
}

func (p Package) what() string {
	if p.What == "" {
		return "package"
	}
	return p.What
}

// label names the package in messages with what it is: "package DIR", "rules file FILE".
func (p Package) label() string { return p.what() + " " + p.name() }

// Template is a ytt template given as text: Name is its file name as ytt reads it (its type by
// its extension), Source names it in errors.
type Template struct {
	Source, Name string
	Data         []byte
}

// Empty says no package was given.
func (p Package) Empty() bool { return len(p.Dirs) == 0 && p.CR == "" }

// Render renders the package with the ytt library and reads the result like any input; rd reads
// its files. Each document says where its templates wrote each node of it (Source.Written): a
// rules file's findings name the template's lines.
func (p Package) Render(rd *load.Reader) ([]load.Doc, error) {
	if p.Empty() {
		return nil, nil
	}
	r, err := p.run(rd, positioned)
	if err != nil {
		return nil, err
	}
	return r.docs()
}

// RenderInput renders the package as the desired objects of an analysis, every file as
// kapp-controller's ytt step renders it: documents from a file bearing rebasegen's header
// (IsGenerated) are marked Source.Generated, each document says where its templates wrote each
// node of it (Source.Written), and a package rendering no object is an error rather than
// "nothing desired".
func (p Package) RenderInput(rd *load.Reader) ([]load.Doc, error) {
	if p.Empty() {
		return nil, nil
	}
	r, err := p.run(rd, positioned)
	if err != nil {
		return nil, err
	}
	docs, err := r.docs()
	if err != nil && p.What == "" && p.CR == "" && len(p.ValuesFiles)+len(p.Values)+len(p.ValuesYAML) == 0 {
		// a name or namespace from a data value comes out empty with the schema's defaults
		return nil, fmt.Errorf("%w\n--package %s was rendered with no --values or --value: every data value is its default; is a --values file missing?", err, r.name)
	}
	if err == nil && len(docs) == 0 {
		err = fmt.Errorf("%s %s: rendering it with ytt gives no Kubernetes object", p.what(), r.name)
	}
	return docs, err
}

// RenderWithValues renders the package as RenderInput does, with each data values file named in
// values (ValuesFile.Name) read as the bytes given instead of its own: a data value changed, to
// see which rendered fields it feeds.
func (p Package) RenderWithValues(rd *load.Reader, values map[string][]byte) ([]load.Doc, error) {
	in, err := p.read(rd)
	if err != nil {
		return nil, err
	}
	for _, fs := range in.Values {
		for i, f := range fs {
			if data, ok := values[f.Name]; ok {
				fs[i].Data = data
			}
		}
	}
	r, err := p.runRead(in, documents, defaultLimits)
	if err != nil {
		return nil, err
	}
	return r.docs()
}

// rendering is a package rendered to YAML.
type rendering struct {
	name string
	yaml []byte
	// from[i]: where ytt rendered the i-th document of yaml from (it positions a document in the
	// template file that made it)
	from []origin
}

// origin is the template file ytt rendered one document from.
type origin struct {
	Generated bool   // the file bears rebasegen's header
	File      string // its path; a template's name (a rules Secret's key) for a template given as text
	// Line is the document's line in File when ytt passed it through as written (a file without
	// ytt annotations): its lines are File's. 0 otherwise.
	Line int
	// Written: in a positioned render, where the package's files wrote each node of the document
	Written *load.Written `json:",omitempty"`
	// Overlays: in a render with inline files, for each top-level key of the document (K) and each
	// item of a list there (K[i]), the package's files holding ytt overlays ytt positions a node of
	// it in (overlaysOf)
	Overlays map[string][]string `json:",omitempty"`
}

// renderedPrefix opens the name of ytt's output in the Sources of the documents rendered.
const renderedPrefix = "ytt("

// RenderedFrom reports whether file names ytt's output (a Source of a rendered document), and
// what was rendered: the package (its directories, its Package CR) or the template; its lines
// are ytt's output's, not a file's.
func RenderedFrom(file string) (string, bool) {
	name, ok := strings.CutPrefix(file, renderedPrefix)
	if !ok || !strings.HasSuffix(name, ")") {
		return "", false
	}
	return strings.TrimSuffix(name, ")"), true
}

func (r rendering) docs() ([]load.Doc, error) {
	docs, err := load.ParseDocs(renderedPrefix+r.name+")", r.yaml)
	for i := range docs {
		r.origin(&docs[i].Source)
	}
	if e := (*load.Error)(nil); errors.As(err, &e) { // naming the template too
		r.origin(&e.Source)
	}
	return docs, err
}

// origin completes src, the Source of a document of the rendering, with where it came from.
func (r rendering) origin(src *load.Source) {
	if src.Doc > 0 && src.Doc <= len(r.from) {
		o := r.from[src.Doc-1]
		src.Generated, src.From, src.FromLine, src.Written = o.Generated, o.File, o.Line, o.Written
	}
}

// DataValues are the package's final data values (ytt --data-values-inspect): its schema's
// defaults with the values files and flags applied.
func (p Package) DataValues(rd *load.Reader) (map[string]any, error) {
	r, err := p.run(rd, dataValues)
	if err != nil {
		return nil, err
	}
	var values map[string]any
	if err := yaml.Unmarshal(r.yaml, &values); err != nil {
		return nil, fmt.Errorf("reading the data values of %s %s: %w", p.what(), strings.Join(p.Dirs, ","), err)
	}
	return values, nil
}

// run renders the package to YAML, what y says.
func (p Package) run(rd *load.Reader, y yield) (rendering, error) {
	return p.runWithin(rd, y, defaultLimits)
}

// yield is what a render gives.
type yield int

const (
	documents  yield = iota // the documents
	positioned              // the documents, each with where the package's files wrote its nodes (origin.Written)
	dataValues              // the final data values (ytt --data-values-inspect), one document
)

var defaultLimits = renderLimits{RenderTimeout, load.MaxFileSize, RenderMemory}

// RenderTimeout bounds rendering a package: a template looping over range(10**12) ran for
// hours. ytt cannot be cancelled, so a render that times out is abandoned (the command fails
// and exits).
const RenderTimeout = time.Minute

// RenderMemory bounds the memory rendering a package may take, beyond what the process held
// before: ytt keeps every value a template builds, and a package building 3,000 strings of 1 MB
// reached 15 GB. Like a render that times out, one over the budget is abandoned.
const RenderMemory = 2 << 30

// renderLimits bound rendering a package (tests lower them).
type renderLimits struct {
	timeout time.Duration
	output  int64 // bytes of YAML
	memory  uint64
}

// RenderFiles renders templates (each one's type by its name's extension, as ytt reads it)
// together, without the package's files but with its data values: a rules Secret's keys, which
// kapp-controller writes as files into the package's ytt step. source names them in Sources.
func (p Package) RenderFiles(rd *load.Reader, source string, templates []Template) ([]load.Doc, error) {
	values := Package{ValuesFiles: p.ValuesFiles, Values: p.Values, ValuesYAML: p.ValuesYAML, Templates: templates, Source: source}
	r, err := values.run(rd, documents)
	if err != nil {
		return nil, err
	}
	return r.docs()
}

// EvalRebaseRule evaluates a ytt rebase rule's overlay on one resource as kapp v0.66.0's
// yttresmod.OverlayContractV1Mod does (the resource as resource.yml, the overlay as overlay.yml,
// the rule's sources as data values), within the budget of a package render: kapp runs the rule
// in its own process without one. source names the rule in errors. Where this executable serves
// renders, it runs in the rule child kapp's engine's evaluations run in (evalRuleWithin), else in
// this process with the heap watched.
func EvalRebaseRule(source, overlay string, resource, sources []byte) error {
	if childRenders.Load() {
		return evalRuleWithin("ytt rebase rule "+source, ruleRequest{Overlay: overlay, Resource: resource, Values: sources}, defaultLimits)
	}
	p := Package{What: "ytt rebase rule", Source: source, Templates: []Template{
		{Source: source, Name: "resource.yml", Data: resource},
		{Source: source, Name: "overlay.yml", Data: []byte(overlay)},
		{Source: source, Name: "values.yml", Data: append([]byte("#@data/values\n---\n"), sources...)},
	}}
	_, err := p.run(nil, documents)
	return err
}

// runWithin is run within limits: in a child process whose memory the kernel bounds where this
// executable serves renders (RenderChild), else in this process, with the heap watched. rd reads
// the package's files, here: a child reads no file.
func (p Package) runWithin(rd *load.Reader, y yield, limits renderLimits) (rendering, error) {
	in, err := p.read(rd)
	if err != nil {
		return rendering{}, err
	}
	return p.runRead(in, y, limits)
}

// runRead is runWithin with what the render reads read.
func (p Package) runRead(in yttInput, y yield, limits renderLimits) (rendering, error) {
	if childRenders.Load() {
		return p.renderInChild(in, y, limits)
	}
	over, stop := watchHeap(limits.memory)
	defer stop()
	type result struct {
		r   rendering
		err error
	}
	done := make(chan result, 1)
	go func() {
		r, err := p.render(in, y, limits.output)
		done <- result{r, err}
	}()
	select {
	case r := <-done:
		return r.r, r.err
	case <-time.After(limits.timeout):
		return rendering{}, timedOut(p.label(), limits.timeout)
	case <-over:
		return rendering{}, overBudget(p.label(), limits.memory)
	}
}

// name names the package in messages: its Package CR, else its directories (or its template),
// with the inline files rendered with it.
func (p Package) name() string {
	switch {
	case p.CR != "" && len(p.Inline) > 0:
		return p.CR + " with " + p.Source
	case p.CR != "":
		return p.CR
	case len(p.Inline) > 0:
		return strings.Join(p.Dirs, ",") + " with " + p.Source
	case len(p.Templates) > 0:
		return p.Source
	}
	return strings.Join(p.Dirs, ",")
}

// render renders the package read as in with ytt, what y says, without limits but on its output
// (bytes of YAML).
func (p Package) render(in yttInput, y yield, output int64) (rendering, error) {
	name, inspect := p.name(), y == dataValues
	fs, err := ytt(in.Files)
	if err != nil {
		return rendering{}, fmt.Errorf("reading %s %s: %w", p.what(), strings.Join(p.Dirs, ","), err)
	}
	var cr crTemplate
	if p.CR != "" {
		if cr, err = packageCRTemplate(p.CR, in.CR); err != nil {
			return rendering{}, err
		}
		fs = append(fs, cr.files...)
	}
	for _, t := range p.Templates {
		if err := load.Aliases(t.Source, t.Data); err != nil {
			return rendering{}, err
		}
		f, err := files.NewFileFromSource(files.NewBytesSource(t.Name, t.Data))
		if err != nil {
			return rendering{}, err
		}
		fs = append(fs, f)
	}
	inline, err := p.inlineFiles(cr)
	if err != nil {
		return rendering{}, err
	}
	var overlays map[string][]string
	if len(inline) > 0 {
		overlays = p.overlayFiles(fs)
	}
	fs = append(fs, inline...)
	fs = files.NewSortedFiles(fs)  // in ytt's order: each -f argument's files in turn (files without one panicked ytt)
	origins := map[string]origin{} // by the path ytt names a file with
	asWritten := map[string]bool{} // files ytt passes through as written: a document's lines are the file's
	for _, t := range slices.Concat(p.Templates, p.Inline) {
		origins[t.Name] = origin{File: t.Name, Generated: load.IsGenerated(t.Data)}
	}
	for _, f := range in.Files {
		if _, ok := origins[f.Rel]; !ok {
			origins[f.Rel] = origin{File: f.Name, Generated: load.IsGenerated(f.Data)}
			asWritten[f.Rel] = !HasYTTAnnotations(f.Name, f.Data)
		}
	}
	opts := template.NewOptions()
	// the Package's valuesFrom paths first: kapp-controller adds a PackageInstall's values after them
	opts.DataValuesFlags.FromFiles = slices.Concat(cr.valuesOrder, p.ValuesFiles)
	valueFiles := map[string]bool{} // as ytt names them in its errors
	opts.DataValuesFlags.ReadFilesFunc = readValues(cr, in, valueFiles)
	opts.FileMarksOpts.FileMarks = cr.step.FileMarks
	opts.IgnoreUnknownComments = cr.step.IgnoreUnknownComments
	opts.StrictYAML = cr.step.Strict
	opts.DataValuesFlags.KVsFromStrings = p.Values
	opts.DataValuesFlags.KVsFromYAML = p.ValuesYAML
	opts.DataValuesFlags.Inspect = inspect
	out := opts.RunWithFiles(template.Input{Files: fs}, ui.NewCustomWriterTTY(false, io.Discard, io.Discard))
	if out.Err != nil {
		if err := p.needsValue(out.Err.Error(), in.Files, fs); err != nil {
			return rendering{}, err
		}
		// ytt's own message, as `ytt` prints it
		return rendering{}, fmt.Errorf("rendering %s %s with ytt:\n%s", p.what(), name, withholdValueLines(out.Err.Error(), valueFiles))
	}
	r := rendering{name: name}
	if inspect { // data values are one document
		if r.yaml, err = out.DocSet.AsBytes(); err != nil {
			return rendering{}, fmt.Errorf("rendering %s %s: %w", p.what(), name, err)
		}
	}
	// each document printed as DocumentSet.AsBytes prints them, noting the file it came from
	for _, item := range out.DocSet.Items {
		if inspect {
			break
		}
		bs, err := (&yamlmeta.DocumentSet{Items: []*yamlmeta.Document{item}}).AsBytes()
		if err != nil {
			return rendering{}, fmt.Errorf("rendering %s %s: %w", p.what(), name, err)
		}
		if len(bs) == 0 { // empty, or not in the templates
			continue
		}
		if len(r.from) > 0 {
			r.yaml = append(r.yaml, "---\n"...)
		}
		r.yaml = append(r.yaml, bs...)
		var o origin
		if item.Position != nil {
			o = origins[item.Position.GetFile()]
			if asWritten[item.Position.GetFile()] && item.Position.IsKnown() {
				o.Line = item.Position.LineNum()
			}
		}
		if len(inline) > 0 {
			o.Overlays = overlaysOf(item, overlays)
		}
		if y == positioned {
			o.Written = nodesWritten(item, func(pos *filepos.Position) string { return origins[fileOf(pos)].File })
		}
		r.from = append(r.from, o)
		if int64(len(r.yaml)) > output {
			break
		}
	}
	if int64(len(r.yaml)) > output { // read like an input file, within the same limit
		return rendering{}, fmt.Errorf("rendering %s %s with ytt: the output is larger than %d MiB", p.what(), name, output>>20)
	}
	return r, nil
}
