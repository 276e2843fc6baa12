package argocd

import (
	"testing"

	"github.com/itchyny/gojq"
)

// A jq run is stopped by its step count, the same on every run whatever the machine's load or
// the race detector: an expression past the bound stops exactly there, one within it runs to its
// end with the same count each time.
func TestJQStepsAreDeterministic(t *testing.T) {
	compile := func(e string) *gojq.Code {
		q, err := gojq.Parse(e)
		if err != nil {
			t.Fatal(err)
		}
		code, err := gojq.Compile(q)
		if err != nil {
			t.Fatal(err)
		}
		return code
	}
	obj := map[string]any{"spec": map[string]any{"replicas": 2}}
	loop := compile("def f: f; f")
	for range 3 {
		if steps, past := jqSteps(loop, obj, 5000); !past || steps != 5001 {
			t.Fatalf("an endless expression: %d steps, past the bound %v; want stopped at step 5001", steps, past)
		}
	}
	short := compile("del(.spec.replicas)")
	first, past := jqSteps(short, obj, 5000)
	if past || first == 0 {
		t.Fatalf("del(.spec.replicas): %d steps, past %v", first, past)
	}
	for range 3 {
		if steps, _ := jqSteps(short, obj, 5000); steps != first {
			t.Fatalf("del(.spec.replicas): %d steps, then %d", first, steps)
		}
	}
	if _, past := jqSteps(short, obj, first-1); !past {
		t.Errorf("del(.spec.replicas) in %d steps is not past a bound of %d", first, first-1)
	}
}
