package argocd

import (
	"bytes"
	"fmt"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/generator/verdict"
	"github.com/rebasegen/rebasegen/internal/words"
)

// Generated is the ignores written in a format and Argo CD's verdict on what was written.
type Generated struct {
	Result
	Output       []byte // the file, header included
	Verification Verification
}

// Generate synthesizes the ignores, writes them in format f after header (for the Application
// app), and verifies what it
// wrote, read back as check reads a file (argocd-cm widens each entry to its kind: the
// verification judges the widened entries). file is the name of the file the output is written
// to, where the findings about an entry point (its line in Output); "" for none (stdout).
func Generate(rep *classify.Report, f Format, app string, header []string, file string) (*Generated, error) {
	res, err := Synthesize(rep, Settings{})
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := Write(&b, res.Ignores, f, app, header); err != nil {
		return nil, err
	}
	// read back as stdin, whose bytes give each entry's line
	objs, err := load.Bytes("-", b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("generated ignoreDifferences do not parse (a bug): %w", err)
	}
	s, err := Read(objs, load.NewReader(bytes.NewReader(b.Bytes())))
	if err != nil {
		return nil, fmt.Errorf("generated ignoreDifferences do not read back (a bug): %w", err)
	}
	s = s.writtenTo(file)
	if s, err = s.WithAnnotations(rep); err != nil { // in force beside what was written
		return nil, err
	}
	v, err := Verify(rep, s, res.Ghost)
	if err != nil {
		return nil, err
	}
	if f == Application && len(v.Masked) > 0 {
		// A controller owns a declared field an ignore takes: without RespectIgnores every sync
		// writes the manifest's value over the controller's. The option changes no comparison
		// (Argo CD's diff config does not read sync options), so the verdict stands.
		b.Reset()
		if err := write(&b, res.Ignores, f, app, header, true); err != nil {
			return nil, err
		}
		objs, err := load.Bytes("-", b.Bytes())
		if err != nil {
			return nil, fmt.Errorf("generated Application does not parse (a bug): %w", err)
		}
		if _, err := Read(objs, load.NewReader(bytes.NewReader(b.Bytes()))); err != nil {
			return nil, fmt.Errorf("generated Application does not read back (a bug): %w", err)
		}
		v = v.keepingSync()
	}
	return &Generated{Result: res, Output: b.Bytes(), Verification: v}, nil
}

// Summary is the verdict's line: "2 ignores; 1 resource Argo CD showed OutOfSync for ghost diffs only, in sync under them; 40 declared values changed in turn, each shown",
// with the resources left OutOfSync for ghosts no ignore may take (left's residual) and the
// changes made in Git among the findings (fs: Findings'), counted apart as the kapp target's
// summary counts them: what a sync applies is no ghost, and a CI log that lists them one by one
// said nothing of them in its last line (fix28e item 3).
func (v Verification) Summary(ignores int, left []Left, fs []verdict.Finding) string {
	s := fmt.Sprintf("%s; %s Argo CD shows OutOfSync for ghost diffs only, %d in sync under them (Argo CD's StateDiff)",
		words.Count(ignores, "ignore"), words.Count(v.Ghost, "resource"), v.InSync)
	n := map[verdict.Kind]int{}
	for _, f := range fs {
		n[f.Kind]++
	}
	if k := n[verdict.KindPending]; k > 0 {
		s += fmt.Sprintf("; %s from Git, which a sync applies", words.Count(k, "pending change"))
	}
	if k := n[verdict.KindImmutable]; k > 0 {
		s += fmt.Sprintf("; %s from Git Argo CD's sync fails on", words.Count(k, "pending change"))
	}
	if k := n[verdict.KindPendingCreate]; k > 0 {
		s += "; " + words.Count(k, "pending create")
	}
	if k := n[verdict.KindPendingDelete]; k > 0 {
		s += "; " + words.Count(k, "pending delete")
	}
	if n := Stuck(left); n > 0 {
		s += fmt.Sprintf("; %s OutOfSync for ghost diffs no ignore may take (fix them in the manifest)", words.Count(n, "resource"))
	}
	s += fmt.Sprintf("; %s changed in turn", words.Count(v.Mutation, "declared value"))
	if len(v.Hidden) > 0 {
		s += fmt.Sprintf(", %d hidden by the ignores", len(v.Hidden))
	}
	if len(v.Masked) > 0 {
		s += fmt.Sprintf(", %d masked where a controller owns the field", len(v.Masked))
	}
	return s
}

// Stuck counts the resources Argo CD keeps showing OutOfSync for a ghost difference no ignore
// may take (residual): only a change to the manifest ends it.
func Stuck(left []Left) int {
	seen := map[pair.Identity]bool{}
	for _, l := range left {
		if l.Kind == verdict.KindResidual && !l.Hidden {
			seen[l.Resource] = true
		}
	}
	return len(seen)
}
