package kappconv

import (
	"errors"
	"fmt"
	"testing"
)

func TestReadableWritesExtraArguments(t *testing.T) {
	msg := "Expected kapp config to be within v1/ConfigMap but apiVersion or kind do not match" // kapp's call: a format without a verb
	inner := fmt.Errorf(msg, "secret/x (v1) cluster")
	wrapped := fmt.Errorf("Parsing resource: %w", inner)
	for _, c := range []struct{ in, want string }{
		{wrapped.Error(), "Parsing resource: Expected kapp config to be within v1/ConfigMap but apiVersion or kind do not match (secret/x (v1) cluster)"},
		{"a%!(EXTRA string=b, int=2) c%!(EXTRA string=d)", "a (b, 2) c (d)"},
		{"open %!(EXTRA string=x", "open %!(EXTRA string=x"},
	} {
		if got := Readable(errors.New(c.in)).Error(); got != c.want {
			t.Errorf("Readable(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if err := Readable(wrapped); !errors.Is(err, inner) {
		t.Error("the error kapp returned is no longer in the chain")
	}
	if err := errors.New("plain"); Readable(err) != err {
		t.Error("an error without the format bug is not returned as it is")
	}
}
