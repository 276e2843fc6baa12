package comparetruth

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// Recorded is one case as hack/comparetruth recorded it: fixtures/compare/<case>.yaml, four YAML
// documents (the case and its steps, the object written, the live object the server returned
// before the write, the server's verdict).
type Recorded struct {
	Case    Case
	Desired *unstructured.Unstructured
	Live    *unstructured.Unstructured
	Truth   Truth
}

// Header heads every file hack/comparetruth writes.
const Header = "# written by hack/comparetruth (make fixtures) from the API server; not by hand\n"

// Marshal is the recorded case's file.
func (r Recorded) Marshal() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(Header)
	b.WriteString("# documents: the case, the object its write sends, the live object before it, the server's verdict on the write's dry run\n")
	for i, v := range []any{r.Case, r.Desired.Object, r.Live.Object, r.Truth} {
		y, err := yaml.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.Case.Name, err)
		}
		if i > 0 {
			b.WriteString("---\n")
		}
		b.Write(y)
	}
	return b.Bytes(), nil
}

// CRDFile is the corpus CRD as the server held it, beside the cases.
const CRDFile = "crd.yaml"

// ReadCorpus reads every recorded case of dir (fixtures/compare), in the order of their file
// names, and the corpus CRD.
func ReadCorpus(dir string) ([]Recorded, *unstructured.Unstructured, error) {
	crd := &unstructured.Unstructured{}
	data, err := os.ReadFile(filepath.Join(dir, CRDFile))
	if err != nil {
		return nil, nil, err
	}
	if err := yaml.Unmarshal(data, &crd.Object); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", filepath.Join(dir, CRDFile), err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	var out []Recorded
	for _, e := range entries {
		if e.IsDir() || e.Name() == CRDFile || !strings.HasSuffix(e.Name(), ".yaml") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		r, err := readRecorded(path)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		if want := strings.TrimSuffix(e.Name(), ".yaml"); r.Case.Name != want {
			return nil, nil, fmt.Errorf("%s: the case is named %q", path, r.Case.Name)
		}
		out = append(out, r)
	}
	return out, crd, nil
}

func readRecorded(path string) (Recorded, error) {
	f, err := os.Open(path)
	if err != nil {
		return Recorded{}, err
	}
	defer f.Close()
	r := Recorded{Desired: &unstructured.Unstructured{}, Live: &unstructured.Unstructured{}}
	docs := []any{&r.Case, &r.Desired.Object, &r.Live.Object, &r.Truth}
	reader := utilyaml.NewYAMLReader(bufio.NewReader(f))
	for i := 0; ; i++ {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			if i != len(docs) {
				return Recorded{}, fmt.Errorf("%d documents, want %d", i, len(docs))
			}
			break
		}
		if err != nil {
			return Recorded{}, err
		}
		if i >= len(docs) {
			return Recorded{}, fmt.Errorf("more than %d documents", len(docs))
		}
		if err := yaml.Unmarshal(doc, docs[i]); err != nil {
			return Recorded{}, fmt.Errorf("document %d: %w", i+1, err)
		}
	}
	r.Case.Desired = r.Desired.Object
	return r, nil
}
