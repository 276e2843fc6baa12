package load

import (
	"fmt"
	"io"
	"path"
	"slices"
	"sort"
	"strings"
	"time"

	"carvel.dev/ytt/pkg/cmd/template"
	"carvel.dev/ytt/pkg/cmd/ui"
	"carvel.dev/ytt/pkg/files"
	"sigs.k8s.io/yaml"
)

// Package says how to render a ytt package config directory, as kapp-controller's ytt template
// step does: every file of the directories, data values files, and key=value data values.
type Package struct {
	Dirs        []string // ytt -f: directories or files
	ValuesFiles []string // ytt --data-values-file
	Values      []string // ytt -v KEY=VAL
	ValuesYAML  []string // ytt --data-value-yaml KEY=VAL
	CR          string   // a kapp-controller Package whose template is fetched inline
}

// Empty says no package was given.
func (p Package) Empty() bool { return len(p.Dirs) == 0 && p.CR == "" }

// Render renders the package with the ytt library and reads the result like any input; r reads
// its files.
func (p Package) Render(r *Reader) ([]Doc, error) {
	if p.Empty() {
		return nil, nil
	}
	name, rendered, err := p.run(r, false, false)
	if err != nil {
		return nil, err
	}
	return ParseDocs("ytt("+name+")", rendered)
}

// RenderInput renders the package as the desired objects of an analysis: files rebasegen
// generated (IsGenerated) are left out, being its output, and a package rendering no object is
// an error rather than "nothing desired".
func (p Package) RenderInput(r *Reader) ([]Doc, error) {
	if p.Empty() {
		return nil, nil
	}
	name, rendered, err := p.run(r, false, true)
	if err != nil {
		return nil, err
	}
	docs, err := ParseDocs("ytt("+name+")", rendered)
	if err == nil && len(docs) == 0 {
		err = fmt.Errorf("package %s: rendering it with ytt gives no Kubernetes object", name)
	}
	return docs, err
}

// DataValues are the package's final data values (ytt --data-values-inspect): its schema's
// defaults with the values files and flags applied.
func (p Package) DataValues(r *Reader) (map[string]any, error) {
	_, rendered, err := p.run(r, true, false)
	if err != nil {
		return nil, err
	}
	var values map[string]any
	if err := yaml.Unmarshal(rendered, &values); err != nil {
		return nil, fmt.Errorf("reading the data values of package %s: %w", strings.Join(p.Dirs, ","), err)
	}
	return values, nil
}

// run renders the package, or only its data values when inspect is set, to YAML; input leaves
// out the files rebasegen generated.
func (p Package) run(r *Reader, inspect, input bool) (string, []byte, error) {
	return p.runWithin(r, inspect, input, renderLimits{RenderTimeout, MaxFileSize, RenderMemory})
}

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

// runWithin is run within limits: in a child process whose memory the kernel bounds where this
// executable serves renders (RenderChild), else in this process, with the heap watched. r reads
// the package's files, here: a child reads no file.
func (p Package) runWithin(r *Reader, inspect, input bool, limits renderLimits) (string, []byte, error) {
	in, err := p.read(r)
	if err != nil {
		return "", nil, err
	}
	if childRenders.Load() {
		return p.renderInChild(in, inspect, input, limits)
	}
	over, stop := watchHeap(limits.memory)
	defer stop()
	type result struct {
		name     string
		rendered []byte
		err      error
	}
	done := make(chan result, 1)
	go func() {
		name, rendered, err := p.render(in, inspect, input, limits.output)
		done <- result{name, rendered, err}
	}()
	select {
	case r := <-done:
		return r.name, r.rendered, r.err
	case <-time.After(limits.timeout):
		return "", nil, fmt.Errorf("rendering package %s with ytt: not done after %v (a loop that does not end?)", p.name(), limits.timeout)
	case <-over:
		return "", nil, overBudget(p.name(), limits.memory)
	}
}

// name names the package in messages: its Package CR, else its directories.
func (p Package) name() string {
	if p.CR != "" {
		return p.CR
	}
	return strings.Join(p.Dirs, ",")
}

// render renders the package read as in with ytt, without limits but on its output (bytes of
// YAML).
func (p Package) render(in yttInput, inspect, input bool, output int64) (string, []byte, error) {
	name := p.name()
	fs, err := ytt(in.Files)
	if err != nil {
		return "", nil, fmt.Errorf("reading package %s: %w", strings.Join(p.Dirs, ","), err)
	}
	if p.CR != "" {
		crFiles, err := packageCRFiles(p.CR, in.CR)
		if err != nil {
			return "", nil, err
		}
		fs = append(fs, crFiles...)
	}
	if input {
		fs = slices.DeleteFunc(fs, func(f *files.File) bool {
			data, err := f.Bytes()
			return err == nil && IsGenerated(data)
		})
	}
	fs = files.NewSortedFiles(fs) // ytt's order: as listed
	opts := template.NewOptions()
	opts.DataValuesFlags.ReadFilesFunc = func(path string) ([]*files.File, error) {
		values, ok := in.Values[path]
		if !ok {
			return nil, fmt.Errorf("reading %s: not among the --values files read", path)
		}
		return ytt(values)
	}
	opts.DataValuesFlags.FromFiles = p.ValuesFiles
	opts.DataValuesFlags.KVsFromStrings = p.Values
	opts.DataValuesFlags.KVsFromYAML = p.ValuesYAML
	opts.DataValuesFlags.Inspect = inspect
	out := opts.RunWithFiles(template.Input{Files: fs}, ui.NewCustomWriterTTY(false, io.Discard, io.Discard))
	if out.Err != nil {
		// ytt's own message, as `ytt` prints it
		return "", nil, fmt.Errorf("rendering package %s with ytt:\n%s", name, out.Err)
	}
	rendered, err := out.DocSet.AsBytes()
	if err != nil {
		return "", nil, fmt.Errorf("rendering package %s: %w", name, err)
	}
	if int64(len(rendered)) > output { // read like an input file, within the same limit
		return "", nil, fmt.Errorf("rendering package %s with ytt: the output is larger than %d MiB", name, output>>20)
	}
	return name, rendered, nil
}

// packageCR is the part of a data.packaging.carvel.dev/v1alpha1 Package rebasegen reads.
type packageCR struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Spec       struct {
		Template struct {
			Spec struct {
				Fetch []map[string]struct {
					Paths     map[string]string `json:"paths"`
					PathsFrom []any             `json:"pathsFrom"`
				} `json:"fetch"`
				Template []map[string]struct {
					Paths []string `json:"paths"`
				} `json:"template"`
				Deploy []struct {
					Kapp *struct {
						IntoNs string   `json:"intoNs"`
						MapNs  []string `json:"mapNs"`
					} `json:"kapp"`
				} `json:"deploy"`
			} `json:"spec"`
		} `json:"template"`
	} `json:"spec"`
}

// DeployNamespaces are the namespace options of the kapp deploy step of the package's Package
// (--package-cr): intoNs puts every namespaced object into that namespace, mapNs maps namespaces
// (kapp-controller v0.51.0 passes them to kapp deploy as --into-ns and --map-ns). Empty without
// a Package.
func (p Package) DeployNamespaces(r *Reader) (intoNs string, mapNs []string, err error) {
	if p.CR == "" {
		return "", nil, nil
	}
	data, err := r.ReadFile(p.CR)
	if err != nil {
		return "", nil, err
	}
	cr, err := readPackageCR(p.CR, data)
	if err != nil {
		return "", nil, err
	}
	for _, d := range cr.Spec.Template.Spec.Deploy {
		if d.Kapp != nil {
			intoNs, mapNs = d.Kapp.IntoNs, append(mapNs, d.Kapp.MapNs...)
		}
	}
	return intoNs, mapNs, nil
}

func readPackageCR(file string, data []byte) (packageCR, error) {
	var cr packageCR
	js, err := ToJSON(file, data)
	if err != nil {
		return cr, err
	}
	if err := yaml.Unmarshal(js, &cr); err != nil {
		return cr, fmt.Errorf("%s: %w", file, err)
	}
	if cr.APIVersion != "data.packaging.carvel.dev/v1alpha1" || cr.Kind != "Package" {
		return cr, fmt.Errorf("%s: not a data.packaging.carvel.dev/v1alpha1 Package", file)
	}
	return cr, nil
}

// packageCRFiles returns the files of a Package's inline fetch that its ytt step reads.
// Other fetch kinds need the network and are out of scope.
func packageCRFiles(file string, data []byte) ([]*files.File, error) {
	cr, err := readPackageCR(file, data)
	if err != nil {
		return nil, err
	}
	spec := cr.Spec.Template.Spec
	if len(spec.Fetch) == 0 {
		return nil, fmt.Errorf("%s: spec.template.spec.fetch is empty", file)
	}
	var ytt *struct {
		Paths []string `json:"paths"`
	}
	for _, step := range spec.Template {
		if s, ok := step["ytt"]; ok {
			ytt = &s
			break
		}
	}
	if ytt == nil {
		return nil, fmt.Errorf("%s: spec.template.spec.template has no ytt step", file)
	}
	var out []*files.File
	for i, f := range spec.Fetch {
		inline, ok := f["inline"]
		if !ok || len(f) != 1 {
			var kinds []string
			for k := range f {
				kinds = append(kinds, k)
			}
			sort.Strings(kinds)
			return nil, fmt.Errorf("%s: spec.template.spec.fetch[%d] is %s: only inline fetches can be rendered offline (image, imgpkgBundle, git and http fetches are out of scope)", file, i, strings.Join(kinds, ","))
		}
		if len(inline.PathsFrom) > 0 {
			return nil, fmt.Errorf("%s: spec.template.spec.fetch[%d].inline.pathsFrom reads Secrets and ConfigMaps from the cluster: only inline.paths can be rendered offline", file, i)
		}
		prefix := ""
		if len(spec.Fetch) > 1 {
			prefix = fmt.Sprintf("%d/", i) // kapp-controller puts several fetches in numbered directories
		}
		names := make([]string, 0, len(inline.Paths))
		for n := range inline.Paths {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			p := path.Clean(prefix + n)
			if !selected(p, ytt.Paths) {
				continue
			}
			ff, err := files.NewFileFromSource(files.NewBytesSource(p, []byte(inline.Paths[n])))
			if err != nil {
				return nil, fmt.Errorf("%s: inline path %s: %w", file, n, err)
			}
			out = append(out, ff)
		}
	}
	return out, nil
}

// selected applies the ytt step's paths (files or directories); none means every file.
func selected(p string, paths []string) bool {
	if len(paths) == 0 {
		return true
	}
	for _, sel := range paths {
		sel = path.Clean(sel)
		if sel == "." || p == sel || strings.HasPrefix(p, sel+"/") {
			return true
		}
	}
	return false
}
