package generator_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
)

// A ytt rule keyed to the value Git now holds (it takes the cluster's bucket when the manifest's
// is "archive") hides that change; check asks about the value Git holds for a change made in Git
// (the mutation check's random values cannot name it). When the live object had drifted too
// (someone set the bucket by hand), the field is drift, kapp diffs against the live object, and
// the change was never asked about: check exited 0 while kapp would never apply it (issue 23).
func TestCheckAsksAboutAGitChangeWhereTheLiveObjectDriftedToo(t *testing.T) {
	read := func(name string) string {
		bs, err := os.ReadFile(filepath.Join("..", "fixtures", "crd-defaults", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(bs)
	}
	desired := strings.Replace(read("desired.yaml"), "    bucket: backups\n", "    bucket: archive\n", 1)
	rule := yttRuleConfig(`#@ load("@ytt:data", "data")
#@ load("@ytt:overlay", "overlay")
#@overlay/match by=overlay.all
---
spec:
  storage:
    #@ b = data.values.new["spec"]["storage"]["bucket"]
    bucket: #@ data.values.existing["spec"]["storage"]["bucket"] if b == "archive" else b
`)
	for _, live := range []string{"backups", "by-hand"} { // what kapp applied; drifted since
		in := generator.Inputs{Desired: []string{writeFile(t, "desired.yaml", desired)}, Namespace: "crd-defaults",
			Live: []string{writeFile(t, "live.yaml", strings.Replace(read("live.yaml"), "    bucket: backups\n", "    bucket: "+live+"\n", 1))}}
		c, err := generator.Check(in, []string{writeFile(t, "rules.yml", rule)})
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(hiddenPaths(c)); got != "[spec.storage.bucket]" {
			t.Errorf("live bucket %s: hidden %s, want [spec.storage.bucket]; %+v drift %+v pending %+v", live, got, c.Hidden, c.Drift, c.Pending)
		}
	}
}
