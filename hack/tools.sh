#!/usr/bin/env bash
# tools.sh - build, once, every binary the e2e tests and fixture capture run: kapp and ytt at the
# versions go.mod pins (tool directives), the control plane and kapp-controller (hack/cluster/build.sh).
# Binaries land in .cache/bin/<name>-<version> (git-ignored); existing ones are never rebuilt.
set -euo pipefail
export GOTOOLCHAIN=auto # go.mod names toolchain go1.27.3: switch to it where the installed go is older
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BIN=${BIN_DIR:-$ROOT/.cache/bin}
mkdir -p "$BIN"
cd "$ROOT"
export GOFLAGS=-buildvcs=false CGO_ENABLED=0

build_tool() { # NAME MODULE PACKAGE VERSION_VAR
  local version out t
  version=$(go list -m -f '{{.Version}}' "$2")
  out=$BIN/$1-$version
  [[ -x $out ]] && return 0
  t=$(date +%s)
  # built as a tool, the package's module is the main module, whose build-info version is "(devel)":
  # set the version variable as releases do (no "v"), or kapp reports "develop" and fails Config
  # minimumRequiredVersion checks
  go build -trimpath -ldflags "-s -w -X $4=${version#v}" -o "$out.tmp" "$3" && mv "$out.tmp" "$out"
  echo "tools.sh: $1 $version built in $(($(date +%s) - t))s" >&2
}

build_tool kapp carvel.dev/kapp carvel.dev/kapp/cmd/kapp carvel.dev/kapp/pkg/kapp/version.Version
build_tool ytt carvel.dev/ytt carvel.dev/ytt/cmd/ytt carvel.dev/ytt/pkg/version.Version
"$ROOT/hack/cluster/build.sh"
