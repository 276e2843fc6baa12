#!/usr/bin/env bash
# build.sh - build the real control plane used by e2e tests and fixture capture, once, from the Go
# module proxy: kube-apiserver and kube-controller-manager at the version hack/cluster/k8s/go.mod
# requires, etcd at the version hack/cluster/etcd/go.mod requires (the one Kubernetes' own
# build/dependencies.yaml names for that release), and kapp-controller's controller at the version
# the main go.mod pins (with its CRDs and the vendir it fetches with).
# Binaries land in .cache/bin/<name>-<version> (git-ignored); an existing binary is never rebuilt.
# Each binary set has its own go.mod (k8s/, etcd/, kappctrl/, vendir/) so their replace directives and
# older dependency graphs stay out of the main module.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BIN=${BIN_DIR:-$ROOT/.cache/bin}
export GOTOOLCHAIN=local GOFLAGS=-buildvcs=false CGO_ENABLED=0
mkdir -p "$BIN"
K8S_VERSION=$(cd "$HERE/k8s" && go list -m -f '{{.Version}}' k8s.io/kubernetes)
ETCD_VERSION=$(cd "$HERE/etcd" && go list -m -f '{{.Version}}' go.etcd.io/etcd/server/v3)

took() { echo "build.sh: $1 built in $(( $(date +%s) - $2 ))s" >&2; }

build_k8s() { # cmd
  local out=$BIN/$1-$K8S_VERSION t=$(date +%s)
  [[ -x $out ]] && return 0
  # the version fields a release build stamps (GET /version, the binaries' --version); the commit
  # and date from the module proxy's record of the tag (the commit only when the proxy keeps it)
  local minor=${K8S_VERSION#v1.} commit date ldf="-s -w"
  minor=${minor%%.*}
  date=$(cd "$HERE/k8s" && go list -m -f '{{.Time.UTC.Format "2006-01-02T15:04:05Z"}}' k8s.io/kubernetes)
  commit=$(cd "$HERE/k8s" && go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/^\t\t"Hash": "\(.*\)",$/\1/p')
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldf+=" -X $p.gitVersion=$K8S_VERSION -X $p.gitMajor=1 -X $p.gitMinor=$minor -X $p.gitTreeState=clean"
    ldf+=" -X $p.gitCommit=$commit -X $p.buildDate=$date"
  done
  (cd "$HERE/k8s" && go build -trimpath -ldflags "$ldf" -o "$out.tmp" "k8s.io/kubernetes/cmd/$1") && mv "$out.tmp" "$out"
  took "$1" "$t"
}

build_etcd() {
  local out=$BIN/etcd-$ETCD_VERSION t=$(date +%s)
  [[ -x $out ]] && return 0
  (cd "$HERE/etcd" && go build -trimpath -ldflags "-s -w" -o "$out.tmp" go.etcd.io/etcd/server/v3) && mv "$out.tmp" "$out"
  took etcd "$t"
}

# kapp-controller v0.51.0's own graph (k8s.io/* v0.27) is older than the main module's: it builds in
# kappctrl/, whose go.mod pins the same version as the main go.mod (testcluster's tests check). Its
# App CRD comes from the same module version, copied next to the binary for start.sh.
build_kappctrl() {
  local v t=$(date +%s) dir
  v=$(cd "$HERE/kappctrl" && go list -m -f '{{.Version}}' github.com/vmware-tanzu/carvel-kapp-controller)
  local out=$BIN/kapp-controller-$v
  if [[ ! -f $out-crds.yml ]]; then
    dir=$(cd "$HERE/kappctrl" && go mod download -json github.com/vmware-tanzu/carvel-kapp-controller | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
    install -m 644 "$dir/config/config/crds.yml" "$out-crds.yml.tmp" && mv "$out-crds.yml.tmp" "$out-crds.yml"
  fi
  [[ -x $out ]] && return 0
  (cd "$HERE/kappctrl" && go build -trimpath -ldflags "-s -w -X main.Version=${v#v}" -o "$out.tmp" \
    github.com/vmware-tanzu/carvel-kapp-controller/cmd/controller) && mv "$out.tmp" "$out"
  took "kapp-controller $v" "$t"
}

# kapp-controller fetches (even inline sources) by running `vendir sync`: vendir at the version
# kapp-controller's go.mod requires.
build_vendir() {
  local v t=$(date +%s)
  v=$(cd "$HERE/vendir" && go list -m -f '{{.Version}}' carvel.dev/vendir)
  local out=$BIN/vendir-$v
  [[ -x $out ]] && return 0
  (cd "$HERE/vendir" && go build -trimpath -ldflags "-s -w -X carvel.dev/vendir/pkg/vendir/version.Version=${v#v}" \
    -o "$out.tmp" carvel.dev/vendir/cmd/vendir) && mv "$out.tmp" "$out"
  took "vendir $v" "$t"
}

build_etcd
build_k8s kube-apiserver
build_k8s kube-controller-manager
build_kappctrl
build_vendir
