package emit_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator/emit"
	"github.com/rebasegen/rebasegen/internal/generated"
)

// The Regenerate line of a generated file is what a shell runs, with the README's
// sh -c "$(sed ...)": each file name in it, quotes, "$(...)" and "::" or "##[" (which the
// header's escaping breaks up) included, is read back by sh as the same argument, and by check
// (ParseCommand) as the same option. Regression (probe8 P8-6): the line quoted with bash's $'...',
// which dash (sh on Debian, Ubuntu and GitHub's runners) reads as a "$" and a single-quoted
// string; the line is now POSIX, and a value no POSIX quoting writes on one line (a line break, a
// control or format character, invalid UTF-8) is refused (Recordable).
func TestRegenerateLineRoundTripsThroughTheShell(t *testing.T) {
	sh, err := exec.LookPath("sh") // dash here, as on Debian and Ubuntu
	if err != nil {
		t.Skip("no sh")
	}
	names := []string{"it's.yaml", `back\slash.yaml`, " ::error x.yaml", "a##[group].yaml", "a::b.yaml", "$(touch y).yaml",
		"plain.yaml", "sp ace.yaml", "dollar'$'x'mix.yaml", "`id`\"q\".yaml", "café 日本.yaml", "%s %%.yaml", "a :: #b ##[ 'c'.yaml"}
	for _, name := range names {
		o := emit.Options{Desired: []string{name}, Namespace: "ns", ValueYAMLArgs: []string{"replicas=" + name}}
		if err := o.Recordable(); err != nil {
			t.Fatalf("%q: %v", name, err)
		}
		var b strings.Builder
		if err := emit.WriteRules(&b, nil, emit.Header{Options: o}); err != nil {
			t.Fatal(err)
		}
		line, ok := generated.Command(b.String())
		if !ok {
			t.Fatalf("%q: no Regenerate line in\n%s", name, b.String())
		}
		want := append([]string{"generate"}, o.Args()...)
		out, err := exec.Command(sh, "-c", `printf '%s\0' `+strings.TrimPrefix(line, "rebasegen ")).Output()
		if err != nil {
			t.Fatalf("%q: sh: %v (line %s)", name, err, line)
		}
		if got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00"); !slices.Equal(got, want) {
			t.Errorf("%q: the line %s reads back in sh as %q, want %q", name, line, got, want)
		}
		back, err := emit.ParseCommand(line)
		if err != nil || !slices.Equal(back.Desired, o.Desired) || !slices.Equal(back.ValueYAMLArgs, o.ValueYAMLArgs) {
			t.Errorf("%q: the line %s reads back in check as %q %q (%v)", name, line, back.Desired, back.ValueYAMLArgs, err)
		}
	}
	for _, v := range []string{"replicas=\n  1", "tab\there", "esc\x1b]0;t\x07", "zw\u200bsp", "rtl\u202e", "bad\xffutf8"} {
		o := emit.Options{Live: []string{"live.yaml"}, ValueYAMLArgs: []string{v}}
		if err := o.Recordable(); err == nil || !strings.Contains(err.Error(), "--value-yaml ") {
			t.Errorf("%q: Recordable = %v, want an error naming --value-yaml", v, err)
		}
	}
}

// Headers written before the line was POSIX quoted a line break with bash's $'...': check still
// reads them as they were written.
func TestParseCommandReadsANSICQuotes(t *testing.T) {
	o, err := emit.ParseCommand(`rebasegen generate --live live.yaml --value-yaml $'replicas=\n  1' --desired $'a\x3a:b\'c'`)
	if err != nil || !slices.Equal(o.ValueYAMLArgs, []string{"replicas=\n  1"}) || !slices.Equal(o.Desired, []string{"a::b'c"}) {
		t.Errorf("got %q %q (%v)", o.ValueYAMLArgs, o.Desired, err)
	}
}
