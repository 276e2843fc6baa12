// Command comparetruth records the compare corpus with the API server's verdicts: for every case
// of internal/comparetruth it runs the case on the cluster KUBECONFIG names and writes
// fixtures/compare/<case>.yaml (comparetruth.Recorded: what was done, the object written, the object
// the server returned before it and the server's dry-run verdict, as documents of one YAML), and
// fixtures/compare/crd.yaml, the corpus CRD as the server holds it. hack/fixtures.sh (make fixtures) runs it on a fresh cluster.
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
	b, err := yaml.Marshal(crd.Object)
	if err != nil {
		return err
	}
	if err := write(filepath.Join(dir, comparetruth.CRDFile), append([]byte(comparetruth.Header), b...)); err != nil {
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
		b, err := comparetruth.Recorded{Case: cs, Desired: desired, Live: live, Truth: truth}.Marshal()
		if err != nil {
			return err
		}
		if err := write(filepath.Join(dir, cs.Name+".yaml"), b); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "comparetruth: %d cases, %d changed by their write, in %s\n", len(cases), changed, dir)
	return nil
}

func write(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
