package scenario

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"k8s.io/apimachinery/pkg/version"

	"github.com/rebasegen/rebasegen/generator/load"
)

// ServerVersionFile holds, beside live.yaml, the GET /version body of the API server the live
// objects come from, as rebasegen capture writes it.
const ServerVersionFile = load.ServerVersionFile

// capturedHeader is the version live.yaml's header names (Write).
var capturedHeader = regexp.MustCompile(`\A# Captured by hack/capture \(make fixtures\) from kube-apiserver (\S+) after `)

// CapturedOn returns the version of the API server a scenario's live.yaml was captured from, as
// its header names it, and checks ServerVersionFile says the same where there is one (captures
// before the harness kept it have none).
func CapturedOn(dir string) (string, error) {
	live, err := os.ReadFile(filepath.Join(dir, "live.yaml"))
	if err != nil {
		return "", err
	}
	m := capturedHeader.FindSubmatch(live)
	if m == nil {
		return "", fmt.Errorf("%s/live.yaml: no header naming the kube-apiserver version it was captured from", dir)
	}
	b, err := os.ReadFile(filepath.Join(dir, ServerVersionFile))
	if os.IsNotExist(err) {
		return string(m[1]), nil
	} else if err != nil {
		return "", err
	}
	var v version.Info
	if err := json.Unmarshal(b, &v); err != nil {
		return "", fmt.Errorf("%s/%s: %w", dir, ServerVersionFile, err)
	}
	if v.GitVersion != string(m[1]) {
		return "", fmt.Errorf("%s: live.yaml was captured from kube-apiserver %s, %s says %q", dir, m[1], ServerVersionFile, v.GitVersion)
	}
	return v.GitVersion, nil
}
