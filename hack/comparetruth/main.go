// Command comparetruth records the compare corpus with the API server's verdicts: for every case
// of internal/comparetruth it runs the case on the cluster KUBECONFIG names and writes
// fixtures/compare/<case>/ (case.yaml: what was done; desired.yaml: the object written; live.yaml:
// the object the server returned before it; truth.yaml: the server's dry-run verdict), and fixtures/compare/crd.yaml,
// the corpus CRD as the server holds it. hack/fixtures.sh (make fixtures) runs it on a fresh cluster.
//
//	KUBECONFIG=... comparetruth [-dir fixtures/compare]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"

	"github.com/rebasegen/rebasegen/internal/comparetruth"
)

func main() {
	dir := flag.String("dir", filepath.Join("fixtures", "compare"), "where the corpus is written")
	flag.Parse()
	if err := run(*dir); err != nil {
		fmt.Fprintln(os.Stderr, "comparetruth:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", os.Getenv("KUBECONFIG"))
	if err != nil {
		return fmt.Errorf("KUBECONFIG: %w", err)
	}
	c, err := comparetruth.NewClient(cfg)
	if err != nil {
		return err
	}
	ctx := context.Background()
	crd, err := c.CRD(ctx)
	if err != nil {
		return err
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := write(filepath.Join(dir, "crd.yaml"), crd.Object); err != nil {
		return err
	}
	changed := 0
	cases := comparetruth.Cases()
	for _, cs := range cases {
		desired, live, truth, err := c.Run(ctx, cs)
		if err != nil {
			return err
		}
		if truth.Changed {
			changed++
		}
		d := filepath.Join(dir, cs.Name)
		for name, v := range map[string]any{"case.yaml": cs, "desired.yaml": desired.Object, "live.yaml": live.Object, "truth.yaml": truth} {
			if err := write(filepath.Join(d, name), v); err != nil {
				return err
			}
		}
	}
	fmt.Fprintf(os.Stderr, "comparetruth: %d cases, %d changed by their write, in %s\n", len(cases), changed, dir)
	return nil
}

func write(path string, v any) error {
	b, err := yaml.Marshal(v)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, append([]byte("# written by hack/comparetruth (make fixtures) from the API server; not by hand\n"), b...), 0o644)
}
