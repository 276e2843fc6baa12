// Command capture runs the scenarios in fixtures/ on a real cluster and (re)writes their live.yaml
// and the fields section of scenario.yaml. hack/fixtures.sh (`make fixtures`) builds the tools,
// starts the cluster and runs it:
//
//	KUBECONFIG=... capture -kapp .cache/bin/kapp-v0.66.0 [-fixtures fixtures,fixtures/argocd] [scenario ...]
//
// Scenarios Argo CD applies (fixtures/argocd) are applied with Argo CD's own sync code (argocd.go).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/rebasegen/rebasegen/internal/scenario"
)

func main() {
	dirs := flag.String("fixtures", "fixtures,fixtures/argocd", "directories holding one directory per scenario, comma-separated")
	kapp := flag.String("kapp", "", "kapp binary (required)")
	keep := flag.Bool("keep", false, "leave each scenario deployed (for debugging)")
	flag.Parse()
	if *kapp == "" || os.Getenv("KUBECONFIG") == "" {
		fmt.Fprintln(os.Stderr, "capture: needs -kapp and KUBECONFIG (run hack/fixtures.sh)")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, strings.Split(*dirs, ","), *kapp, *keep, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "capture:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, dirs []string, kapp string, keep bool, names []string) error {
	var all []*scenario.Scenario
	for _, dir := range dirs {
		in, err := scenario.LoadAll(dir)
		if err != nil {
			return err
		}
		all = append(all, in...)
	}
	// kapp runs in each scenario's directory
	kapp, err := filepath.Abs(kapp)
	if err != nil {
		return err
	}
	tg := scenario.Target{Kubeconfig: os.Getenv("KUBECONFIG"), Kapp: kapp, Log: os.Stderr}
	if tg.ArgoCD, err = argoCD(tg.Kubeconfig); err != nil {
		return err
	}
	t0 := time.Now()
	n := 0
	for _, s := range all {
		if len(names) > 0 && !slices.Contains(names, s.Name) {
			continue
		}
		n++
		t := time.Now()
		fmt.Fprintf(os.Stderr, "%s:\n", s.Name)
		res, err := s.Run(ctx, tg)
		if err != nil {
			return err
		}
		if err := s.Write(res); err != nil {
			return err
		}
		// scenarios share the cluster: remove each one (an APIService without a backend would
		// break discovery for the next ones)
		if !keep {
			if err := s.Cleanup(ctx, tg); err != nil {
				return err
			}
		}
		fmt.Fprintf(os.Stderr, "%s: %d objects, %d differing fields, %.1fs\n", s.Name, len(res.Live), len(res.Fields), time.Since(t).Seconds())
	}
	if n == 0 {
		return fmt.Errorf("no scenario matched %v in %s", names, strings.Join(dirs, ", "))
	}
	fmt.Fprintf(os.Stderr, "captured %d scenarios in %.1fs\n", n, time.Since(t0).Seconds())
	return nil
}
