#!/usr/bin/env bash
# fixtures.sh - `make fixtures`: build the tools, start ONE throwaway cluster with the
# kube-controller-manager, capture every scenario in fixtures/ (or those named as arguments) with
# the real kapp CLI, stop the cluster; then (all scenarios only) record the compare corpus with the
# API server's verdicts (hack/comparetruth) on a cluster of its own.
set -euo pipefail
export GOTOOLCHAIN=auto # go.mod names toolchain go1.27.3: switch to it where the installed go is older
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
t0=$EPOCHREALTIME
hack/tools.sh
KAPP=$ROOT/.cache/bin/kapp-$(go list -m -f '{{.Version}}' carvel.dev/kapp)
go build -o .cache/bin/capture ./hack/capture
FAST_STOP=1 WITH_CONTROLLER_MANAGER=1 hack/cluster/start.sh run -- .cache/bin/capture -kapp "$KAPP" -fixtures fixtures,fixtures/argocd "$@"
# the compare corpus (fixtures/compare): its own cluster, without the controller-manager, whose
# controllers would change the objects while their writes are judged; with every scenario only
if [[ $# -eq 0 ]]; then
  go build -o .cache/bin/comparetruth ./hack/comparetruth
  FAST_STOP=1 hack/cluster/start.sh run -- .cache/bin/comparetruth -dir fixtures/compare
fi
awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "fixtures.sh: done in %.1fs\n", b - a }' >&2
