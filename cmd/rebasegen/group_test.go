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
	if a, b := lines[explainGroupAbove+20], lines[explainGroupAbove+50]; a != b || a > 120 { // 120: a line per difference whose evidence varies (fix28e), wrapped
		t.Errorf("grouped explain: %d and %d lines, want the same few", a, b)
	}
	small := rebasegen(t, append([]string{"explain", "--group"}, scenario(t, "hpa-replicas")...)...)
	if !strings.Contains(small.stdout, "apps/Deployment: 1 resource\n") {
		t.Errorf("--group on 2 resources: not grouped:\n%s", small.stdout)
	}
}

// TestExplainGroupedSaysWhereEvidenceDiffers (issue 24, fix28e): a grouped difference showed one
// example's evidence whatever the others said; a drift's class names no manager, so three
// ConfigMaps edited by hand, two with kubectl edit and one with kubectl patch at another time,
// read as kubectl edit's alone. Now an evidence that varies is marked "e.g." and a line says
// which words vary in which resources; one the same for every resource is shown as it is.
func TestExplainGroupedSaysWhereEvidenceDiffers(t *testing.T) {
	fix := scenario(t, "human-drift")
	configMap := func(file string) string {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range strings.Split(string(data), "\n---\n") {
			if strings.Contains(doc, "\nkind: ConfigMap\n") || strings.HasPrefix(doc, "apiVersion: v1\nkind: ConfigMap\n") {
				return doc
			}
		}
		t.Fatalf("%s: no ConfigMap", file)
		return ""
	}
	desired, live := configMap(fix[1]), configMap(fix[3])
	for _, want := range []string{"manager: kubectl-edit\n", `time: "2026-11-26T01:45:23Z"`, "/ConfigMap/shop-config;", "\n  name: shop-config\n"} {
		if !strings.Contains(live, want) {
			t.Fatalf("the fixture's live ConfigMap holds no %q", want)
		}
	}
	var ds, ls []string
	for i := range 3 {
		name := fmt.Sprintf("shop-%d", i)
		ds = append(ds, strings.Replace(desired, "name: shop-config", "name: "+name, 1))
		l := strings.NewReplacer("/ConfigMap/shop-config;", "/ConfigMap/"+name+";", "\n  name: shop-config\n", "\n  name: "+name+"\n").Replace(live)
		if i == 2 { // edited with kubectl patch, later
			l = strings.NewReplacer("manager: kubectl-edit\n", "manager: kubectl-patch\n", `time: "2026-11-26T01:45:23Z"`, `time: "2026-11-26T02:00:00Z"`).Replace(l)
		}
		ls = append(ls, l)
	}
	dir := t.TempDir()
	write := func(name string, docs []string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(strings.Join(docs, "\n---\n")), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	r := rebasegen(t, "explain", "--group", "--wide", "-d", write("desired.yaml", ds), "-l", write("live.yaml", ls), "-n", fix[5])
	if r.code != 0 {
		t.Fatalf("explain: exit %d\n%s", r.code, r.stderr)
	}
	var row, differs, artifact string
	for _, l := range strings.Split(r.stdout, "\n") {
		switch {
		case strings.HasPrefix(l, "  data.log-level ") && strings.Contains(l, " 3/3 "):
			row = l
		case strings.HasPrefix(l, "  data.log-level evidence differs: "):
			differs = l
		case strings.HasPrefix(l, "  metadata.annotations "):
			artifact = l
		}
	}
	if !strings.Contains(row, "  e.g. managedFields: kubectl-edit changed it") {
		t.Errorf("the drift's row does not mark its evidence an example: %q\n%s", row, r.stdout)
	}
	for _, w := range []string{
		`"...kubectl-edit changed it (manager kubectl-edit, operation Update, at 2026-11-26T01:45:23Z); a tool people use by hand: kubectl edit default manager (k8s.io/kubectl pkg/cmd/edit)" in human-drift/shop-0, human-drift/shop-1`,
		`"...kubectl-patch changed it (manager kubectl-patch, operation Update, at 2026-11-26T02:00:00Z); a tool people use by hand: kubectl patch default manager (k8s.io/kubectl pkg/cmd/patch/patch.go)" in human-drift/shop-2`,
	} {
		if !strings.Contains(differs, w[:60]) || !strings.Contains(differs, w[strings.LastIndex(w, `" in `):]) {
			t.Errorf("want %q (cut) in the line saying where the evidence differs: %q\n%s", w, differs, r.stdout)
		}
	}
	if artifact == "" || strings.Contains(artifact, "e.g.") || strings.Contains(r.stdout, "metadata.annotations evidence differs") {
		t.Errorf("kapp's artifact, the same evidence for all three, is marked as an example: %q\n%s", artifact, r.stdout)
	}
}
