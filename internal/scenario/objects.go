package scenario

// The objects' files (desired.yaml, live.yaml) and the resource references scenario.yaml uses.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// ResourceID formats "<group>/<Kind> <namespace>/<name>", with "core" for the core group and no
// namespace part when the object has none.
func ResourceID(u *unstructured.Unstructured) string {
	gvk := u.GroupVersionKind()
	g := gvk.Group
	if g == "" {
		g = "core"
	}
	if u.GetNamespace() == "" {
		return g + "/" + gvk.Kind + " " + u.GetName()
	}
	return g + "/" + gvk.Kind + " " + u.GetNamespace() + "/" + u.GetName()
}

// parseRef splits "<group>/<Kind> [<namespace>/]<name>".
func parseRef(ref string) (gk schema.GroupKind, ns, name string, err error) {
	gkPart, objPart, ok := strings.Cut(strings.TrimSpace(ref), " ")
	g, k, ok2 := strings.Cut(gkPart, "/")
	if !ok || !ok2 {
		return gk, "", "", fmt.Errorf("resource %q: want <group>/<Kind> [<namespace>/]<name>", ref)
	}
	if g == "core" {
		g = ""
	}
	if ns, name, ok = strings.Cut(objPart, "/"); !ok {
		ns, name = "", objPart
	}
	return schema.GroupKind{Group: g, Kind: k}, ns, name, nil
}

func sameObject(a, b *unstructured.Unstructured) bool {
	return a.GroupVersionKind().GroupKind() == b.GroupVersionKind().GroupKind() && a.GetName() == b.GetName()
}

func readObjects(path string) ([]*unstructured.Unstructured, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := utilyaml.NewYAMLReader(bufio.NewReader(f))
	var out []*unstructured.Unstructured
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		} else if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		js, err := yaml.YAMLToJSON(doc)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if string(js) == "null" {
			continue // empty document
		}
		// unstructured's JSON decoding keeps integers as int64, as client-go returns them
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(js); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out = append(out, u)
	}
}

// writeObjects writes objs as a multi-document YAML; sigs.k8s.io/yaml sorts map keys, so the
// output is deterministic.
func writeObjects(path, header string, objs []*unstructured.Unstructured) error {
	var b bytes.Buffer
	b.WriteString(header)
	for _, o := range objs {
		bs, err := yaml.Marshal(o.Object)
		if err != nil {
			return err
		}
		b.WriteString("---\n")
		b.Write(bs)
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}
