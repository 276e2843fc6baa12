package generator_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	apiresource "k8s.io/apimachinery/pkg/api/resource"

	"github.com/rebasegen/rebasegen/generator"
)

// A value its type's own decoder refuses (a container's cpu request "100x", no quantity): the
// input error named the file and document but no field (newcomer15 N15-6), unlike every other
// input error. It names the field and the value now. The oracle: Kubernetes' own quantity parser
// refuses "100x" and accepts "100m".
func TestUndecodableValueNamesItsField(t *testing.T) {
	if _, err := apiresource.ParseQuantity("100x"); err == nil {
		t.Fatal("oracle: 100x parses as a quantity")
	}
	if _, err := apiresource.ParseQuantity("100m"); err != nil {
		t.Fatalf("oracle: 100m: %v", err)
	}
	dir := filepath.Join("..", "fixtures", "hpa-replicas")
	desired, err := os.ReadFile(filepath.Join(dir, "desired.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	manifest := strings.Replace(string(desired), "cpu: 100m\n", "cpu: 100x\n", 1)
	if manifest == string(desired) {
		t.Fatal("no cpu: 100m in fixtures/hpa-replicas/desired.yaml")
	}
	in := generator.Inputs{Desired: []string{writeFile(t, "desired.yaml", manifest)}, Live: []string{filepath.Join(dir, "live.yaml")}, Namespace: "hpa-replicas"}
	_, err = generator.Check(in, nil)
	// the field's line, not the document's (newcomer15 N15-6): where the text holds the value
	line := 1 + strings.Count(manifest[:strings.Index(manifest, "cpu: 100x")], "\n")
	if want := fmt.Sprintf("document 1 (line 1): field spec.template.spec.containers[0].resources.requests.cpu (line %d): \"100x\": ", line); err == nil || !strings.Contains(err.Error(), "desired.yaml") || !strings.Contains(err.Error(), want) {
		t.Errorf("want an input error naming the file, the field, its line and its value (%q), got %v", want, err)
	}
}
