#!/usr/bin/env bash
# build.sh - build the real control plane used by e2e tests and fixture capture, once, from the Go
# module proxy: kube-apiserver and kube-controller-manager v1.35.0, etcd v3.6.6.
# Binaries land in .cache/bin/<name>-<version> (git-ignored); an existing binary is never rebuilt.
# Each binary set has its own go.mod (k8s/, etcd/) so Kubernetes' replace directives stay out of
# the main module.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BIN=${BIN_DIR:-$ROOT/.cache/bin}
K8S_VERSION=v1.35.0
ETCD_VERSION=v3.6.6
export GOTOOLCHAIN=local GOFLAGS=-buildvcs=false CGO_ENABLED=0
mkdir -p "$BIN"

took() { echo "build.sh: $1 built in $(( $(date +%s) - $2 ))s" >&2; }

build_k8s() { # cmd
  local out=$BIN/$1-$K8S_VERSION t=$(date +%s)
  [[ -x $out ]] && return 0
  local ldf="-s -w"
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldf+=" -X $p.gitVersion=$K8S_VERSION -X $p.gitMajor=1 -X $p.gitMinor=35 -X $p.gitTreeState=clean"
    ldf+=" -X $p.gitCommit=66452049f3d692768c39c797b21b793dce80314e -X $p.buildDate=2025-12-17T00:00:00Z"
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

build_etcd
build_k8s kube-apiserver
build_k8s kube-controller-manager
