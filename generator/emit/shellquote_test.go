package emit_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator/emit"
	"github.com/rebasegen/rebasegen/internal/generated"
)

// The Regenerate line of a generated file is what a shell runs: each file name in it, control,
// format and invalid characters included, and "::" or "##[" (which the header's escaping breaks
// up), is read back by bash as the same argument, and by check (ParseCommand) as the same
// option. Single quotes kept a newline written \n, which bash reads as a backslash and an n.
func TestRegenerateLineRoundTripsThroughTheShell(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	names := []string{"nl\nx.yaml", "tab\there.yaml", "esc\x1b]0;t\x07.yaml", "zw\u200bsp.yaml", "rtl\u202e.yaml",
		"bad\xffutf8.yaml", "it's.yaml", `back\slash.yaml`, " ::error x.yaml", "a##[group].yaml", "a::b.yaml", "$(touch y).yaml",
		"plain.yaml", "sp ace.yaml", "dollar'$'\n'mix.yaml"}
	for _, name := range names {
		o := emit.Options{Desired: []string{name}, Namespace: "ns"}
		var b strings.Builder
		if err := emit.WriteRules(&b, nil, emit.Header{Options: o}); err != nil {
			t.Fatal(err)
		}
		line, ok := generated.Command(b.String())
		if !ok {
			t.Fatalf("%q: no Regenerate line in\n%s", name, b.String())
		}
		want := append([]string{"generate"}, o.Args()...)
		out, err := exec.Command(bash, "-c", `printf '%s\0' `+strings.TrimPrefix(line, "rebasegen ")).Output()
		if err != nil {
			t.Fatalf("%q: bash: %v (line %s)", name, err, line)
		}
		if got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00"); !slices.Equal(got, want) {
			t.Errorf("%q: the line %s reads back in bash as %q, want %q", name, line, got, want)
		}
		back, err := emit.ParseCommand(line)
		if err != nil || !slices.Equal(back.Desired, o.Desired) {
			t.Errorf("%q: the line %s reads back in check as %q (%v)", name, line, back.Desired, err)
		}
	}
}
