package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fleet writes n copies of the hpa-replicas fixture's objects, named web-0 to web-(n-1).
func fleet(t *testing.T, n int) []string {
	t.Helper()
	fix := scenario(t, "hpa-replicas")
	dir := t.TempDir()
	var paths []string
	for _, i := range []int{1, 3} {
		data, err := os.ReadFile(fix[i])
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), "\n  name: web\n") {
			t.Fatalf("%s: no metadata.name web", fix[i])
		}
		var all []string
		for j := range n {
			// the identity annotation kapp writes names the resource: web-N's, as kapp leaves it
			renamed := strings.ReplaceAll(string(data), "/web;", fmt.Sprintf("/web-%d;", j))
			all = append(all, strings.ReplaceAll(renamed, "\n  name: web\n", fmt.Sprintf("\n  name: web-%d\n", j)))
		}
		p := filepath.Join(dir, filepath.Base(fix[i]))
		if err := os.WriteFile(p, []byte(strings.Join(all, "\n---\n")), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return []string{"-d", paths[0], "-l", paths[1], "-n", fix[5]}
}

// TestExplainGroupsFleets (issue 24 point 7): above explainGroupAbove resources explain shows each
// difference of a kind once, with how many resources have it (counted here from the JSON
// report), in as many lines for 120 resources as for 150; --group=false lists every resource.
func TestExplainGroupsFleets(t *testing.T) {
	lines := map[int]int{}
	for _, n := range []int{explainGroupAbove + 20, explainGroupAbove + 50} {
		in := fleet(t, n)
		r := rebasegen(t, append([]string{"explain"}, in...)...)
		if r.code != 0 {
			t.Fatalf("explain: exit %d\n%s", r.code, r.stderr)
		}
		if !strings.Contains(r.stderr, "--group=false") {
			t.Errorf("%d resources: no note on grouping:\n%s", n, r.stderr)
		}
		lines[n] = strings.Count(r.stdout, "\n")
		wide := rebasegen(t, append([]string{"explain", "--wide"}, in...)...).stdout // one line per difference
		js := rebasegen(t, append([]string{"explain", "-o", "json"}, in...)...)
		var rep struct {
			Resources []struct {
				Group, Kind string
				Fields      []struct{ Path, Class, Owner string }
			}
		}
		if err := json.Unmarshal([]byte(js.stdout), &rep); err != nil {
			t.Fatal(err)
		}
		perKind, count := map[string]int{}, map[[2]string]int{}
		for _, res := range rep.Resources {
			perKind[res.Kind]++
			for _, f := range res.Fields {
				count[[2]string{res.Kind, f.Path}]++
			}
		}
		for k, c := range count {
			want := fmt.Sprintf("  %s  ", k[1])
			found := false
			for _, l := range strings.Split(wide, "\n") {
				found = found || strings.HasPrefix(l, want) && strings.Contains(l, fmt.Sprintf(" %d/%d ", c, perKind[k[0]]))
			}
			if !found {
				t.Errorf("%d resources: no line for %s %s with %d/%d:\n%s", n, k[0], k[1], c, perKind[k[0]], wide)
			}
		}
		all := rebasegen(t, append([]string{"explain", "--group=false"}, in...)...)
		if got := strings.Count(all.stdout, "apps/Deployment hpa-replicas/web-"); got != n {
			t.Errorf("--group=false: %d Deployments listed, want %d", got, n)
		}
	}
	if a, b := lines[explainGroupAbove+20], lines[explainGroupAbove+50]; a != b || a > 100 {
		t.Errorf("grouped explain: %d and %d lines, want the same few", a, b)
	}
	small := rebasegen(t, append([]string{"explain", "--group"}, scenario(t, "hpa-replicas")...)...)
	if !strings.Contains(small.stdout, "apps/Deployment: 1 resource\n") {
		t.Errorf("--group on 2 resources: not grouped:\n%s", small.stdout)
	}
}
