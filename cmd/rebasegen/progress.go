package main

import (
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/rebasegen/rebasegen/generator"
)

// progressMinPairs: runs over this many pairs draw a progress bar (on a terminal, without --quiet).
const progressMinPairs = 1000

// progressFor returns the progress bar of a run on stderr, or nil when stderr is not a terminal
// or --quiet is set: a bar is only for a person watching, never in files or CI logs.
func progressFor(c *cli.Context) generator.Progress {
	if isQuiet(c) || !isTTY(os.Stderr) {
		return nil
	}
	return newProgress(os.Stderr, progressMinPairs)
}

// newProgress draws one bar per stage on w, once the run is known to have over minPairs pairs
// (the classify stage comes first and counts them). Each bar is cleared when its stage ends.
func newProgress(w io.Writer, minPairs int) generator.Progress {
	var (
		mu    sync.Mutex
		big   bool
		stage string
		bar   *progressbar.ProgressBar
		shown int
	)
	return func(name string, done, total int) {
		mu.Lock()
		defer mu.Unlock()
		if name == "classify" && total > minPairs {
			big = true
		}
		if !big {
			return
		}
		if name != stage {
			stage, shown = name, 0
			bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(w), progressbar.OptionSetDescription(name),
				progressbar.OptionShowCount(), progressbar.OptionSetWidth(30), progressbar.OptionSetElapsedTime(true),
				progressbar.OptionSetPredictTime(true), progressbar.OptionThrottle(100*time.Millisecond),
				progressbar.OptionClearOnFinish())
		}
		if done > shown { // reports from several goroutines may arrive out of order
			shown = done
			_ = bar.Set(done)
		}
	}
}

// isTTY reports whether f is a terminal (not merely a character device such as /dev/null).
func isTTY(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }
