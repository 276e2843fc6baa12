package yttrender

import (
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"carvel.dev/ytt/pkg/files"
	yaml3 "gopkg.in/yaml.v3"
	"sigs.k8s.io/yaml"

	"github.com/rebasegen/rebasegen/generator/load"
)

// packageCR is the part of a data.packaging.carvel.dev/v1alpha1 Package rebasegen reads: its
// template as kapp-controller v0.51.0 runs it (pkg/app/app_fetch.go, app_template.go,
// pkg/template/ytt.go).
type packageCR struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Spec       struct {
		Template struct {
			Spec struct {
				Fetch    []map[string]any `json:"fetch"`
				Template []map[string]any `json:"template"`
				Deploy   []struct {
					Kapp *struct {
						IntoNs     string   `json:"intoNs"`
						MapNs      []string `json:"mapNs"`
						RawOptions []string `json:"rawOptions"`
					} `json:"kapp"`
				} `json:"deploy"`
			} `json:"spec"`
		} `json:"template"`
	} `json:"spec"`
}

// inlineFetch is an inline fetch (v1alpha1.AppFetchInline).
type inlineFetch struct {
	Paths     map[string]string `json:"paths"`
	PathsFrom []any             `json:"pathsFrom"`
}

// yttStep is a ytt template step (v1alpha1.AppTemplateYtt).
type yttStep struct {
	IgnoreUnknownComments bool         `json:"ignoreUnknownComments"`
	Strict                bool         `json:"strict"`
	Inline                *inlineFetch `json:"inline"`
	Paths                 []string     `json:"paths"`
	FileMarks             []string     `json:"fileMarks"`
	ValuesFrom            []struct {
		Path         string `json:"path"`
		SecretRef    any    `json:"secretRef"`
		ConfigMapRef any    `json:"configMapRef"`
		DownwardAPI  any    `json:"downwardAPI"`
	} `json:"valuesFrom"`
}

// crTemplate is what the Package's ytt step renders: its files in ytt's order, its data values
// files (valuesFrom paths, read from the fetched files), and its options.
type crTemplate struct {
	files       []*files.File
	valuesFiles map[string][]*files.File // by the name given to ytt as --data-values-file
	valuesOrder []string
	step        yttStep
}

// packageCRTemplate reads the Package's fetch and template steps. Inline fetches, one ytt step
// with its paths, inline paths, file marks and valuesFrom paths are rendered offline as
// kapp-controller renders them; what needs the cluster or the network (other fetch kinds,
// pathsFrom, valuesFrom Secrets, ConfigMaps and the downward API) and every other template step
// (kbld resolves images over the network; helmTemplate, cue, sops, kustomize, jsonnet, a second
// ytt) is refused, naming the field: never skipped.
func packageCRTemplate(file string, data []byte) (crTemplate, error) {
	cr, err := readPackageCR(file, data)
	if err != nil {
		return crTemplate{}, err
	}
	spec := cr.Spec.Template.Spec
	fetched, err := fetchInline(file, spec.Fetch)
	if err != nil {
		return crTemplate{}, err
	}
	if len(spec.Template) == 0 {
		return crTemplate{}, fmt.Errorf("%s: spec.template.spec.template is empty", file)
	}
	for i, step := range spec.Template {
		kinds := slices.Sorted(mapKeys(step))
		if i == 0 && len(kinds) == 1 && kinds[0] == "ytt" {
			continue
		}
		what := "the first step must be ytt: rebasegen renders only a ytt step offline"
		if i > 0 {
			what = "rebasegen renders only the ytt step offline (kbld resolves images over the network), and kapp deploys what the later steps make of its output"
		}
		return crTemplate{}, fmt.Errorf("%s: spec.template.spec.template[%d] is %s: %s; render the package's ytt step with --package instead, if that is what kapp deploys", file, i, strings.Join(kinds, ","), what)
	}
	var t crTemplate
	bs, _ := yaml.Marshal(spec.Template[0]["ytt"])
	if err := yaml.UnmarshalStrict(bs, &t.step); err != nil {
		return crTemplate{}, fmt.Errorf("%s: spec.template.spec.template[0].ytt: %w (rebasegen renders ignoreUnknownComments, strict, inline.paths, paths, fileMarks and valuesFrom paths)", file, err)
	}
	const at = "spec.template.spec.template[0].ytt"
	// ytt -f for each path (scoped to the fetched files), else -f for all of them
	args := t.step.Paths
	if len(args) == 0 {
		args = []string{"."}
	}
	for _, a := range args {
		if a == "-" {
			return crTemplate{}, fmt.Errorf("%s: %s.paths: - (stdin) needs a template step before ytt", file, at)
		}
		group, err := under(fetched, a)
		if err != nil {
			return crTemplate{}, fmt.Errorf("%s: %s.paths: %w", file, at, err)
		}
		t.files = append(t.files, group...)
	}
	if in := t.step.Inline; in != nil {
		if len(in.PathsFrom) > 0 {
			return crTemplate{}, fmt.Errorf("%s: %s.inline.pathsFrom reads Secrets and ConfigMaps from the cluster: only inline.paths can be rendered offline", file, at)
		}
		inline, err := written(file, at+".inline.paths", "", in.Paths)
		if err != nil {
			return crTemplate{}, err
		}
		group, _ := under(inline, ".")
		t.files = append(t.files, group...)
	}
	t.valuesFiles = map[string][]*files.File{}
	for i, v := range t.step.ValuesFrom {
		if v.SecretRef != nil || v.ConfigMapRef != nil || v.DownwardAPI != nil || v.Path == "" || v.Path == "-" {
			return crTemplate{}, fmt.Errorf("%s: %s.valuesFrom[%d]: only a path among the fetched files can be read offline (secretRef, configMapRef and downwardAPI read the cluster): pass the values with --values", file, at, i)
		}
		group, err := under(fetched, v.Path)
		if err != nil {
			return crTemplate{}, fmt.Errorf("%s: %s.valuesFrom[%d].path: %w", file, at, i, err)
		}
		name := fmt.Sprintf("%s (%s.valuesFrom[%d].path %s)", file, at, i, v.Path)
		t.valuesFiles[name] = group
		t.valuesOrder = append(t.valuesOrder, name)
	}
	return t, nil
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// fetched is a file kapp-controller's fetch wrote: its path in the fetch directory and content.
type fetched map[string][]byte

// fetchInline writes the inline fetches as kapp-controller's vendir does: each into a directory
// named by its path or index, the root being that directory when there is one fetch without a
// path.
func fetchInline(file string, steps []map[string]any) (fetched, error) {
	if len(steps) == 0 {
		return nil, fmt.Errorf("%s: spec.template.spec.fetch is empty", file)
	}
	out := fetched{}
	dirs := make([]string, len(steps))
	for i, f := range steps {
		field := fmt.Sprintf("spec.template.spec.fetch[%d]", i)
		dir, _ := f["path"].(string)
		delete(f, "path")
		kinds := slices.Sorted(mapKeys(f))
		if len(kinds) != 1 || kinds[0] != "inline" {
			return nil, fmt.Errorf("%s: %s is %s: only inline fetches can be rendered offline (image, imgpkgBundle, git, http and helmChart fetches need the network)", file, field, strings.Join(kinds, ","))
		}
		var inline inlineFetch
		bs, _ := yaml.Marshal(f["inline"])
		if err := yaml.Unmarshal(bs, &inline); err != nil {
			return nil, fmt.Errorf("%s: %s.inline: %w", file, field, err)
		}
		if dir == "" && len(steps) > 1 {
			dir = fmt.Sprint(i) // kapp-controller puts several fetches in numbered directories
		}
		if dir != "" && !filepath.IsLocal(dir) {
			return nil, fmt.Errorf("%s: %s.path %q is outside the fetch directory", file, field, dir)
		}
		if len(inline.PathsFrom) > 0 {
			return nil, fmt.Errorf("%s: %s.inline.pathsFrom reads Secrets and ConfigMaps from the cluster: only inline.paths can be rendered offline", file, field)
		}
		dirs[i] = path.Clean(dir)
		// vendir refuses a config whose directories overlap before it fetches anything
		// (carvel.dev/vendir v0.45.1 pkg/vendir/config/config.go checkOverlappingPaths); judged
		// on cleaned paths, so that ./config and config, which vendir lets replace each other,
		// are refused too rather than merged.
		for j, other := range dirs[:i] {
			if other == dirs[i] || strings.HasPrefix(dirs[i]+"/", other+"/") || strings.HasPrefix(other+"/", dirs[i]+"/") {
				return nil, fmt.Errorf("%s: spec.template.spec.fetch[%d] (directory %q) and %s (directory %q) overlap: kapp-controller's fetch (vendir) refuses overlapping directories and deploys nothing", file, j, other, field, dirs[i])
			}
		}
		w, err := written(file, field+".inline.paths", dir, inline.Paths)
		if err != nil {
			return nil, err
		}
		for p, b := range w {
			out[p] = b
		}
	}
	return out, nil
}

// written are inline paths as written under dir, each kept within it (memdir.ScopedPath). Two
// paths naming one file are refused: vendir writes them in map order, so which one it keeps
// changes from sync to sync.
func written(file, field, dir string, paths map[string]string) (fetched, error) {
	out := fetched{}
	by := map[string]string{}
	for _, n := range slices.Sorted(mapKeys(paths)) {
		content := paths[n]
		p := path.Join(dir, n)
		if first, ok := by[p]; ok {
			return nil, fmt.Errorf("%s: %s: %q and %q name the same file: kapp-controller's fetch (vendir) keeps either one at random", file, field, first, n)
		}
		by[p] = n
		if !filepath.IsLocal(p) || (dir != "" && !strings.HasPrefix(p, dir+"/")) {
			return nil, fmt.Errorf("%s: %s: %q is outside the fetched directory", file, field, n)
		}
		if err := load.Aliases(fmt.Sprintf("%s %s[%q]", file, field, n), []byte(content)); err != nil {
			return nil, err
		}
		out[p] = []byte(content)
	}
	return out, nil
}

// under are the files ytt -f reads for sel: the file itself (named by its base name) or the
// files of the directory (named relative to it), sorted as ytt sorts a -f argument's files.
func under(fs fetched, sel string) ([]*files.File, error) {
	sel = path.Clean(sel)
	if !filepath.IsLocal(sel) && sel != "." {
		return nil, fmt.Errorf("%q is outside the fetched files", sel)
	}
	var out []*files.File
	for p, content := range fs {
		var rel string
		switch {
		case p == sel:
			rel = path.Base(p)
		case sel == ".":
			rel = p
		case strings.HasPrefix(p, sel+"/"):
			rel = strings.TrimPrefix(p, sel+"/")
		default:
			continue
		}
		f, err := files.NewFileFromSource(files.NewBytesSource(rel, content))
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%q: no such file or directory among the fetched files", sel)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].RelativePath() < out[j].RelativePath() })
	return out, nil
}

// DeployNamespaces are the namespace options of the kapp deploy step of the package's Package
// (--package-cr): intoNs puts every namespaced object into that namespace, mapNs maps namespaces
// (kapp-controller v0.51.0 passes them to kapp deploy as --into-ns and --map-ns). Empty without
// a Package.
func (p Package) DeployNamespaces(r *load.Reader) (intoNs string, mapNs []string, err error) {
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
	js, err := load.ToJSON(file, data)
	if err != nil {
		return cr, err
	}
	if err := yaml.Unmarshal(js, &cr); err != nil {
		return cr, fmt.Errorf("%s: %w", file, err)
	}
	if cr.APIVersion != "data.packaging.carvel.dev/v1alpha1" || cr.Kind != "Package" {
		return cr, fmt.Errorf("%s: not a data.packaging.carvel.dev/v1alpha1 Package", file)
	}
	return cr, deployOptions(file, data, cr)
}

// lineOf is the line of the value at path (map keys and list indexes) in the Package CR's YAML
// document; its first line where the path is not found there.
func lineOf(data []byte, path ...any) int {
	var doc yaml3.Node
	if yaml3.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
		return 1
	}
	n := doc.Content[0]
	for _, step := range path {
		for n.Kind == yaml3.AliasNode {
			n = n.Alias
		}
		var next *yaml3.Node
		switch s := step.(type) {
		case string:
			for k := 0; n.Kind == yaml3.MappingNode && k+1 < len(n.Content); k += 2 {
				if n.Content[k].Value == s {
					next = n.Content[k+1]
				}
			}
		case int:
			if n.Kind == yaml3.SequenceNode && s < len(n.Content) {
				next = n.Content[s]
			}
		}
		if next == nil {
			return doc.Content[0].Line
		}
		n = next
	}
	return n.Line
}
