package classify

import (
	"fmt"
	"testing"
)

var sprintf = fmt.Sprintf

// What live objects exported from older API servers carry, which no v1.35 server can be made to
// store (so no captured fixture holds them): the removed ObjectMeta.ClusterName, and a null
// creationTimestamp in an embedded ObjectMeta (a CronJob's jobTemplate) whose manifest has no
// metadata there at all. Issue 25.
func TestOldExportsMetadata(t *testing.T) {
	const cronJob = "apiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: nightly\n  namespace: ns\n%s" +
		"spec:\n  schedule: '0 3 * * *'\n  jobTemplate:\n%s    spec:\n      template:\n        spec:\n          restartPolicy: OnFailure\n          containers: [{name: job, image: busybox:1.36}]\n"
	desired := sprintf(cronJob, "", "")
	live := sprintf(cronJob, "  clusterName: \"\"\n", "    metadata: {creationTimestamp: null}\n")
	got := classifyYAML(t, desired, live)
	for path, want := range map[string]Class{"metadata.clusterName": Calculated, "spec.jobTemplate.metadata": Calculated} {
		f, ok := got[path]
		if !ok {
			var paths []string
			for p := range got {
				paths = append(paths, p)
			}
			t.Errorf("no finding at %s: %v", path, paths)
			continue
		}
		if f.Class != want {
			t.Errorf("%s: %s (%s), want %s", path, f.Class, f.Evidence, want)
		}
	}
}
