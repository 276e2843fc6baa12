package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHandWrittenRulesNewcomer6 (newcomer6 N6-7), hand-written rules:
//   - the mutation check's removal of a field the manifest still declares is what would happen
//     if Git removed it, not "a removal made in Git";
//   - a bare list index in a rule's path (kapp wants {index: 0}) names the file, the rule's line
//     and the path, with inputs too: kapp's own error named only line 1 of the file, and lint
//     with -d/-l stopped there;
//   - lint's list of hidden fields says how to see the ones it leaves out.
func TestHandWrittenRulesNewcomer6(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const head = "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nrebaseRules:\n"
	broad := write("broad.yml", head+"- path: [spec, jobTemplate]\n  type: copy\n  sources: [existing, new]\n  resourceMatchers:\n  - apiVersionKindMatcher: {apiVersion: batch/v1, kind: CronJob}\n")
	cron := scenario(t, "job-cronjob")
	r := rebasegen(t, append([]string{"check", "--rules", broad}, cron...)...)
	var removal string
	for _, l := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(l, "hidden: batch/CronJob job-cronjob/cleanup spec.jobTemplate: ") {
			removal = l
		}
	}
	if r.code != exitPending || !strings.Contains(removal, "if Git removed the field from the manifest, the object kapp applies would still hold it") || strings.Contains(removal, "a removal made in Git") {
		t.Errorf("check of a copy of spec.jobTemplate, the manifests unchanged: exit %d, the removal of spec.jobTemplate: %q\nstdout:\n%s", r.code, removal, r.stdout)
	}
	r = rebasegen(t, append([]string{"lint", "--rules", broad}, cron...)...)
	if !strings.Contains(r.stdout, " (and 3 more): rebasegen check with these inputs lists every one") {
		t.Errorf("lint of a copy of spec.jobTemplate: stdout:\n%s\nwant the fields left out counted, and where to see them", r.stdout)
	}

	index := write("index.yml", head+"- path: [spec, ports, 0, nodePort]\n  type: copy\n  sources: [existing]\n  resourceMatchers:\n  - apiVersionKindMatcher: {apiVersion: v1, kind: Service}\n")
	const want = "rebaseRules[0]: kapp cannot read the rule: part 2 (0) of path [spec, ports, 0, nodePort] is none kapp knows"
	svc := scenario(t, "services")
	r = rebasegen(t, append([]string{"lint", "--rules", index}, svc...)...)
	if r.code != exitLint || !strings.Contains(r.stdout, index+":4: error: "+want) || !strings.Contains(r.stdout, "suggestion: [spec, ports, {index: 0}, nodePort]") {
		t.Errorf("lint -d -l of a bare index: exit %d, stdout:\n%s\nstderr:\n%s\nwant exit %d, %s:4: error: %s", r.code, r.stdout, r.stderr, exitLint, index, want)
	}
	r = rebasegen(t, append([]string{"check", "--rules", index}, svc...)...)
	if r.code != exitError || !strings.Contains(r.stderr, index+":4: "+want) {
		t.Errorf("check of a bare index: exit %d, stderr:\n%s\nwant exit 1, %s:4: %s", r.code, r.stderr, index, want)
	}
}
