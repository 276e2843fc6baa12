package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestProgressBarOnlyForRunsOverTheThreshold(t *testing.T) {
	var small bytes.Buffer
	p := newProgress(&small, 3)
	for i := 1; i <= 3; i++ {
		p("classify", i, 3)
	}
	p("verify", 1, 1)
	if small.Len() != 0 {
		t.Errorf("a run of 3 pairs drew a bar: %q", small.String())
	}

	var big bytes.Buffer
	p = newProgress(&big, 3)
	p("classify", 1, 4)
	if !strings.Contains(big.String(), "classify") || !strings.Contains(big.String(), "1/4") {
		t.Fatalf("no classify bar: %q", big.String())
	}
	p("classify", 3, 4)
	p("classify", 2, 4) // out of order: ignored
	p("classify", 4, 4)
	p("verify", 1, 2)
	if !strings.Contains(big.String(), "verify") {
		t.Fatalf("no verify bar: %q", big.String())
	}
	p("verify", 2, 2)
	out := big.String()
	if last := out[strings.LastIndex(out, "\r")+1:]; strings.TrimSpace(last) != "" {
		t.Errorf("the finished bar is not cleared: %q", last)
	}
}
