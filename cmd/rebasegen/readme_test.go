//go:build unix

package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/pmezard/go-difflib/difflib"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/rebasegen/rebasegen/generator/argocd"
	"github.com/rebasegen/rebasegen/generator/yttrender"
)

// TestMain makes the test binary the rebasegen command of the README's scripts (testscript).
// --quiet: a run over 2 seconds on a loaded machine would add a timing line the README does not show.
// The binary buildCLI built is removed when the tests end.
func TestMain(m *testing.M) {
	argocd.JQChild()        // Argo CD's comparisons under jq expressions run in a child process, as the command runs them
	yttrender.RenderChild() // packages render in a child process, as the command renders them
	testscript.Main(removingBuiltCLI{m}, map[string]func(){
		"rebasegen": func() { os.Exit(run(append([]string{os.Args[0], "--quiet"}, os.Args[1:]...))) },
	})
}

// removingBuiltCLI runs the tests, then removes the binary buildCLI built for them.
type removingBuiltCLI struct{ m *testing.M }

func (r removingBuiltCLI) Run() int {
	defer removeBuiltCLI()
	return r.m.Run()
}

// The README is the single source of its examples: TestREADME runs every one of them.
//
// A runnable example is an indented code block whose first line starts with "$ ". Each "$ "
// line is a command, run with sh in the script's work directory (a "$ cd DIR" changes it for the
// commands after it); the lines after it are its output, stdout and stderr as a terminal shows
// them, then "exit N" when its exit status is not 0. A line starting with "..." (after its
// indentation: "    ... (the ytt program)") stands for any lines. Every
// example under one heading is one testscript script, run in order in one work directory where
// fixtures/, examples/ and rulesets/ are the repository's.
const readmeFile = "../../README.md"

type readmeCmd struct {
	line     int      // README line of the "$ " line
	command  string   // after "$ "
	want     []string // expected output lines
	exit     int
	showExit bool // the README writes "exit 0" too
	from, to int  // README lines (0-based, half-open) of the output and exit lines
	indent   string
}

type readmeScript struct {
	heading string
	cmds    []*readmeCmd
}

func TestREADME(t *testing.T) {
	data, err := os.ReadFile(readmeFile)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	scripts := parseREADME(lines)
	if len(scripts) == 0 {
		t.Fatal("no runnable example in README.md")
	}
	byName := map[string]*readmeScript{}
	dir := t.TempDir()
	for i, s := range scripts {
		name := fmt.Sprintf("%02d-%s", i, slug(s.heading))
		byName[name] = s
		var b strings.Builder
		fmt.Fprintf(&b, "# README.md: %s\n", s.heading)
		for j, c := range s.cmds {
			if dir, ok := strings.CutPrefix(c.command, "cd "); ok && !strings.ContainsAny(dir, ";&|") {
				fmt.Fprintf(&b, "cd %s\n", dir)
				continue
			}
			fmt.Fprintf(&b, "readme %s %d\n", name, j)
		}
		if err := os.WriteFile(filepath.Join(dir, name+".txtar"), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	updates := map[*readmeCmd][]string{}
	t.Cleanup(func() {
		if len(updates) > 0 {
			writeREADME(t, lines, updates)
		}
	})
	testscript.Run(t, testscript.Params{
		Dir: dir,
		Setup: func(env *testscript.Env) error {
			for _, d := range []string{"fixtures", "examples", "rulesets"} {
				if err := os.Symlink(filepath.Join(repo, d), filepath.Join(env.WorkDir, d)); err != nil {
					return err
				}
			}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"readme": func(ts *testscript.TestScript, neg bool, args []string) {
				j, _ := strconv.Atoi(args[1])
				c := byName[args[0]].cmds[j]
				got, code := runShell(ts, c.command)
				if code == c.exit && matchLines(c.want, got) {
					return
				}
				if *update {
					lines, err := refreshed(c, got, code)
					ts.Check(err)
					mu.Lock()
					updates[c] = lines
					mu.Unlock()
					return
				}
				diff, _ := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{A: withNewlines(c.want), B: withNewlines(got),
					FromFile: fmt.Sprintf("README.md:%d", c.from+1), ToFile: "got", Context: 3})
				ts.Fatalf("README.md:%d: the output of\n    $ %s\ndiffers from what the README shows (exit status %d, README: %d):\n%s\n"+
					"If the new output is right, refresh the README and review the change:\n"+
					"    go test ./cmd/rebasegen -run TestREADME -update && git diff README.md",
					c.line+1, c.command, code, c.exit, diff)
			},
		},
	})
}

// runShell runs one README command as a terminal would: with sh, stdout and stderr interleaved.
func runShell(ts *testscript.TestScript, command string) ([]string, int) {
	cmd := exec.Command("sh", "-c", command)
	cmd.Dir = ts.MkAbs(".")
	cmd.Env = []string{"PATH=" + ts.Getenv("PATH"), "HOME=" + ts.Getenv("HOME"), "TMPDIR=" + ts.Getenv("TMPDIR"), "LC_ALL=C"}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		ts.Fatalf("running %q: %v", command, err)
	}
	text := strings.TrimSuffix(out.String(), "\n")
	if text == "" {
		return nil, code
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t") // Markdown editors drop trailing blanks
	}
	return lines, code
}

// matchLines: want equals got, a "..." line in want standing for any lines.
func matchLines(want, got []string) bool {
	if len(want) == 0 {
		return len(got) == 0
	}
	if isElision(want[0]) {
		for i := 0; i <= len(got); i++ {
			if matchLines(want[1:], got[i:]) {
				return true
			}
		}
		return false
	}
	return len(got) > 0 && want[0] == got[0] && matchLines(want[1:], got[1:])
}

func isElision(l string) bool { return strings.HasPrefix(strings.TrimLeft(l, " "), "...") }

// refreshed is what -update writes for a command: the output, keeping the README's "..." line
// (one per example; more need a hand edit) over the same number of lines around it, and the exit
// status.
func refreshed(c *readmeCmd, got []string, code int) ([]string, error) {
	out := got
	var at []int
	for i, l := range c.want {
		if isElision(l) {
			at = append(at, i)
		}
	}
	switch {
	case len(at) > 1:
		return nil, fmt.Errorf("README.md:%d: more than one \"...\" line: refresh this example by hand", c.line+1)
	case len(at) == 1:
		i, tail := at[0], len(c.want)-at[0]-1
		if i+tail <= len(got) {
			out = append(append(append([]string{}, got[:i]...), c.want[i]), got[len(got)-tail:]...)
		}
	}
	if code != 0 || c.showExit {
		out = append(out, fmt.Sprintf("exit %d", code))
	}
	return out, nil
}

func writeREADME(t *testing.T, lines []string, updates map[*readmeCmd][]string) {
	var out []string
	start := 0
	for _, c := range sortedCmds(updates) {
		out = append(out, lines[start:c.from]...)
		for _, l := range updates[c] {
			out = append(out, strings.TrimRight(c.indent+l, " "))
		}
		start = c.to
	}
	out = append(out, lines[start:]...)
	if err := os.WriteFile(readmeFile, []byte(strings.Join(out, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("rewrote %d examples in README.md: review git diff README.md", len(updates))
}

func sortedCmds(m map[*readmeCmd][]string) []*readmeCmd {
	var cs []*readmeCmd
	for c := range m {
		cs = append(cs, c)
	}
	for i := range cs { // few: insertion sort by line
		for j := i; j > 0 && cs[j].from < cs[j-1].from; j-- {
			cs[j], cs[j-1] = cs[j-1], cs[j]
		}
	}
	return cs
}

var exitLine = regexp.MustCompile(`^exit (\d+)$`)

// parseREADME finds the runnable examples, grouped by heading.
func parseREADME(lines []string) []*readmeScript {
	var scripts []*readmeScript
	heading := ""
	var cur *readmeScript
	inFence := false
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(l, "```") {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		if strings.HasPrefix(l, "#") {
			heading, cur = strings.TrimLeft(l, "# "), nil
			continue
		}
		indent := l[:len(l)-len(strings.TrimLeft(l, " "))]
		if len(indent) < 4 || !strings.HasPrefix(l[len(indent):], "$ ") || (i > 0 && strings.TrimSpace(lines[i-1]) != "") {
			continue
		}
		if cur == nil {
			cur = &readmeScript{heading: heading}
			scripts = append(scripts, cur)
		}
		// the block: lines with at least this indentation, blank lines inside included
		end := i
		for end < len(lines) && (strings.HasPrefix(lines[end], indent) || strings.TrimSpace(lines[end]) == "" && end+1 < len(lines) && strings.HasPrefix(lines[end+1], indent)) {
			end++
		}
		var c *readmeCmd
		for k := i; k < end; k++ {
			text := strings.TrimPrefix(lines[k], indent)
			if cmd, ok := strings.CutPrefix(text, "$ "); ok {
				c = &readmeCmd{line: k, command: cmd, from: k + 1, to: k + 1, indent: indent}
				cur.cmds = append(cur.cmds, c)
				continue
			}
			if m := exitLine.FindStringSubmatch(text); m != nil {
				c.exit, _ = strconv.Atoi(m[1])
				c.showExit = true
			} else {
				c.want = append(c.want, text)
			}
			if text != "" { // blank lines between two commands belong to neither
				c.to = k + 1
			}
		}
		for _, c := range cur.cmds {
			c.want = c.want[:c.to-c.from-boolInt(c.showExit)]
		}
		i = end - 1
	}
	return scripts
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func withNewlines(ls []string) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l + "\n"
	}
	return out
}

var nonWord = regexp.MustCompile(`[^a-z0-9]+`)

func slug(s string) string {
	return strings.Trim(nonWord.ReplaceAllString(strings.ToLower(s), "-"), "-")
}

// TestREADMEParse: the example syntax TestREADME reads, on a README of its own.
func TestREADMEParse(t *testing.T) {
	md := strings.Split("## A\n\ntext\n\n    $ echo a\n    a\n\n    $ false\n    exit 1\n\n```\n    $ not run\n```\n## B\n\n    $ cd x\n    $ seq 3\n    ... (any)\n    3\n", "\n")
	s := parseREADME(md)
	if len(s) != 2 || s[0].heading != "A" || s[1].heading != "B" || len(s[0].cmds) != 2 || len(s[1].cmds) != 2 {
		t.Fatalf("scripts: %+v", s)
	}
	a, f, seq := s[0].cmds[0], s[0].cmds[1], s[1].cmds[1]
	if a.command != "echo a" || strings.Join(a.want, "|") != "a" || a.exit != 0 || a.from != 5 || a.to != 6 {
		t.Errorf("echo a: %+v", a)
	}
	if f.command != "false" || len(f.want) != 0 || f.exit != 1 || !f.showExit {
		t.Errorf("false: %+v", f)
	}
	if !matchLines(seq.want, []string{"1", "2", "3"}) || matchLines(seq.want, []string{"1", "2"}) || !matchLines(seq.want, []string{"3"}) {
		t.Errorf("elision: %q", seq.want)
	}
	if got, _ := refreshed(seq, []string{"1", "2", "3", "4"}, 2); strings.Join(got, "|") != "... (any)|4|exit 2" {
		t.Errorf("refreshed: %q", got)
	}
}

// TestREADMEVersionsExist: every version of rebasegen the README installs or uses exists: latest,
// the main branch, or a tag of this repository (issue 18: the CI example named a v0.1.0 that
// never was).
func TestREADMEVersionsExist(t *testing.T) {
	data, err := os.ReadFile(readmeFile)
	if err != nil {
		t.Fatal(err)
	}
	tags, err := exec.Command("git", "tag", "--list").Output()
	if err != nil {
		t.Skipf("no git: %v", err)
	}
	refs := regexp.MustCompile(`rebasegen/rebasegen(?:/cmd/rebasegen)?@(\S+)`).FindAllStringSubmatch(string(data), -1)
	if len(refs) == 0 {
		t.Fatal("the README installs no version of rebasegen")
	}
	for _, m := range refs {
		if v := m[1]; v != "latest" && v != "main" && !slices.Contains(strings.Fields(string(tags)), v) {
			t.Errorf("README.md names rebasegen@%s: not latest, main or a tag of this repository", v)
		}
	}
}
