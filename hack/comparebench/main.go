// Command comparebench puts the compare package side by side with what controllers use today,
// on the compare corpus (fixtures/compare) and against the API server's recorded verdict on each
// write: k8s-objectmatcher v1.10.0 used as its README says (a three-way patch against the
// last-applied annotation the controller writes on every create and update),
// equality.Semantic.DeepDerivative of the desired object against the live one (what
// CreateOrUpdate-style code does), and writing always. For each: false "changed" and false
// "unchanged", and its cost per object (ns/op, allocs/op).
//
// It is a module of its own so that objectmatcher and controller-runtime (the controller scene of
// scene_test.go, which `make e2e` runs) are never dependencies of rebasegen or of the programs
// importing compare. `make bench` runs it:
//
//	cd hack/comparebench && go run . [-fixtures ../../fixtures/compare]
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/cisco-open/k8s-objectmatcher/patch"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/rebasegen/rebasegen/compare"
	"github.com/rebasegen/rebasegen/internal/comparetruth"
)

// recorded is one case of the corpus, its objects typed where client-go's scheme knows the kind
// (objectmatcher's strategic merge and DeepDerivative need the Go types).
type recorded struct {
	name           string
	mode           comparetruth.Mode
	desired, live  *unstructured.Unstructured
	first          *unstructured.Unstructured // the object as the controller created it
	typedDesired   runtime.Object
	typedLive      runtime.Object // with objectmatcher's annotation of first, as its README writes it at create
	truth          comparetruth.Truth
	objectmatcherE error
}

// approach says whether a write is needed, and whether it is unsure (compare's Unsure).
type approach struct {
	name  string
	write func(r *recorded) (write, unsure bool, err error)
}

func main() {
	dir := flag.String("fixtures", filepath.Join("..", "..", "fixtures", "compare"), "the compare corpus")
	flag.Parse()
	if err := run(*dir); err != nil {
		fmt.Fprintln(os.Stderr, "comparebench:", err)
		os.Exit(1)
	}
}

// typed converts u to its Go type; nil for a kind client-go's scheme does not know.
func typed(u *unstructured.Unstructured) (runtime.Object, error) {
	o, err := scheme.Scheme.New(u.GroupVersionKind())
	if err != nil {
		return nil, nil
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, o); err != nil {
		return nil, fmt.Errorf("%s %s: %w", u.GetKind(), u.GetName(), err)
	}
	return o, nil
}

func load(dir string) ([]*recorded, *unstructured.Unstructured, error) {
	corpus, crd, err := comparetruth.ReadCorpus(dir)
	if err != nil {
		return nil, nil, err
	}
	var out []*recorded
	for _, c := range corpus {
		r := &recorded{name: c.Case.Name, mode: c.Case.Mode, desired: c.Desired, live: c.Live, truth: c.Truth}
		// the created object, named as the desired one is
		r.first = &unstructured.Unstructured{Object: c.Case.Steps[0].Object}
		r.first.SetName(r.desired.GetName())
		r.first.SetNamespace(r.desired.GetNamespace())
		if r.typedDesired, err = typed(r.desired); err != nil {
			return nil, nil, err
		}
		if r.typedDesired == nil {
			r.typedDesired = r.desired
		}
		// objectmatcher's README: the controller annotates the object it creates
		// (SetLastAppliedAnnotation), so the live object carries that annotation
		created := r.first.DeepCopy()
		first := runtime.Object(created)
		if t, err := typed(created); err != nil {
			return nil, nil, err
		} else if t != nil {
			first = t
		}
		if err := patch.DefaultAnnotator.SetLastAppliedAnnotation(first); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", r.name, err)
		}
		live := r.live.DeepCopy()
		annotations := live.GetAnnotations()
		if annotations == nil {
			annotations = map[string]string{}
		}
		key := patch.LastAppliedConfig
		fa, _ := metaAnnotations(first)
		annotations[key] = fa[key]
		live.SetAnnotations(annotations)
		if r.typedLive, err = typed(live); err != nil {
			return nil, nil, err
		}
		if r.typedLive == nil {
			r.typedLive = live
		}
		out = append(out, r)
	}
	return out, crd, nil
}

// cpu is the process's user and system CPU time so far.
func cpu() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func metaAnnotations(o runtime.Object) (map[string]string, error) {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
	if err != nil {
		return nil, err
	}
	return (&unstructured.Unstructured{Object: u}).GetAnnotations(), nil
}

func run(dir string) error {
	cases, crd, err := load(dir)
	if err != nil {
		return err
	}
	comparers := map[comparetruth.Mode]*compare.Comparer{}
	for mode, o := range map[comparetruth.Mode]compare.Option{comparetruth.Apply: compare.WithApply(comparetruth.Manager), comparetruth.Update: compare.WithUpdate()} {
		if comparers[mode], err = compare.New(o, compare.WithCRDs(crd)); err != nil {
			return err
		}
	}
	approaches := []approach{
		{"rebasegen compare", func(r *recorded) (bool, bool, error) {
			res, err := comparers[r.mode].Compare(r.desired, r.live)
			if err != nil {
				return false, false, err
			}
			return res.NeedsWrite(), res.Verdict == compare.Unsure, nil
		}},
		{"objectmatcher v1.10.0", func(r *recorded) (bool, bool, error) {
			res, err := patch.DefaultPatchMaker.Calculate(r.typedLive, r.typedDesired, patch.IgnoreStatusFields())
			if err != nil {
				return false, false, err
			}
			return !res.IsEmpty(), false, nil
		}},
		{"Semantic.DeepDerivative", func(r *recorded) (bool, bool, error) {
			return !equality.Semantic.DeepDerivative(r.typedDesired, r.typedLive), false, nil
		}},
		{"always write", func(*recorded) (bool, bool, error) { return true, false, nil }},
	}
	judged := 0
	for _, r := range cases {
		if r.truth.Rejected == "" {
			judged++
		}
	}
	fmt.Printf("compare corpus: %d writes judged by the API server's dry run (%s), %d more it rejects (not counted)\n\n",
		judged, cases[0].truth.Server, len(cases)-judged)
	fmt.Println("| approach | false changed (of which Unsure) | false unchanged | errors | ns/op per object | allocs/op per object | CPU ns per object |")
	fmt.Println("|---|---|---|---|---|---|---|")
	for _, a := range approaches {
		var falseChanged, unsure, falseUnchanged, errs int
		for _, r := range cases {
			if r.truth.Rejected != "" {
				continue
			}
			write, uns, err := a.write(r)
			switch {
			case err != nil:
				errs++
			case write && !r.truth.Changed:
				falseChanged++
				if uns {
					unsure++
				}
			case !write && r.truth.Changed:
				falseUnchanged++
			}
		}
		b := testing.Benchmark(func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				_, _, _ = a.write(cases[i%len(cases)])
			}
		})
		// CPU time too: on a shared machine the wall time per object says as much about the
		// other processes as about the approach
		before := cpu()
		for _, r := range cases {
			_, _, _ = a.write(r)
		}
		fmt.Printf("| %s | %d (%d) | %d | %d | %d | %d | %d |\n", a.name, falseChanged, unsure, falseUnchanged, errs, b.NsPerOp(), b.AllocsPerOp(),
			(cpu()-before).Nanoseconds()/int64(len(cases)))
	}
	fmt.Println("\nobjectmatcher: its annotation is the one SetLastAppliedAnnotation makes of the object as created, added to the live object offline (the corpus's objects were created without it); its own writes of the annotation are not counted.")
	return nil
}
