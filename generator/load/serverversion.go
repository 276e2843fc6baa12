package load

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"k8s.io/apimachinery/pkg/util/version"

	"github.com/rebasegen/rebasegen/internal/escape"
	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// ServerVersionFile is the API server's GET /version body, which rebasegen capture writes beside
// live.yaml: the live objects were defaulted by that server's code.
const ServerVersionFile = "server-version.json"

// ServerVersion is the version of the API server the live objects were read from.
type ServerVersion struct {
	Version *version.Version
	Source  string // "--server-version", or the server-version.json it was read from
}

// String is the version as Kubernetes writes it: v1.35.0.
func (s ServerVersion) String() string { return "v" + s.Version.String() }

// ReadServerVersion is flag (--server-version) when given, else the server-version.json beside
// the live files (in a live directory); nil when neither says. Two files naming different
// versions are an error: the live objects would come from two servers, defaulted by two codes.
func (r *Reader) ReadServerVersion(flag string, live []string) (*ServerVersion, error) {
	if flag != "" {
		v, err := version.ParseSemantic(flag)
		if err != nil {
			return nil, fmt.Errorf("--server-version %s: want a Kubernetes version such as %s: %w", escape.Text(flag), kappconv.Kubernetes, err)
		}
		return &ServerVersion{Version: v, Source: "--server-version"}, nil
	}
	var found *ServerVersion
	seen := map[string]bool{}
	for _, l := range live {
		if l == "-" {
			continue
		}
		dir := filepath.Dir(l)
		if st, err := os.Stat(l); err == nil && st.IsDir() {
			dir = l
		}
		file := filepath.Join(dir, ServerVersionFile)
		if seen[file] {
			continue
		}
		seen[file] = true
		v, err := r.readServerVersion(file)
		if err != nil || v == nil {
			return nil, err
		}
		if found != nil && !found.Version.EqualTo(v.Version) {
			return nil, fmt.Errorf("the live objects come from two API servers: %s says %s, %s says %s (give --server-version to choose)", found.Source, found, v.Source, v)
		}
		if found == nil {
			found = v
		}
	}
	return found, nil
}

// readServerVersion reads a GET /version body (k8s.io/apimachinery/pkg/version.Info); nil when
// the file does not exist.
func (r *Reader) readServerVersion(file string) (*ServerVersion, error) {
	data, err := r.ReadFound(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return ParseServerVersion(data, file)
}

// ParseServerVersion reads a GET /version body; source names it in errors.
func ParseServerVersion(data []byte, source string) (*ServerVersion, error) {
	var info struct {
		GitVersion *string `json:"gitVersion"`
	}
	if err := json.Unmarshal(data, &info); err != nil {
		return nil, fmt.Errorf("%s: not the JSON of the API server's GET /version: %w", source, err)
	}
	if info.GitVersion == nil {
		return nil, fmt.Errorf("%s: field gitVersion: missing (the API server's GET /version body holds it)", source)
	}
	v, err := version.ParseSemantic(*info.GitVersion)
	if err != nil {
		return nil, fmt.Errorf("%s: field gitVersion: %q is not a Kubernetes version: %w", source, *info.GitVersion, err)
	}
	return &ServerVersion{Version: v, Source: source}, nil
}
