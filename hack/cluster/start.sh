#!/usr/bin/env bash
# start.sh - a throwaway etcd + kube-apiserver (+ kube-controller-manager, + kapp-controller) on 127.0.0.1, for e2e
# tests and fixture capture. Binaries come from hack/cluster/build.sh (.cache/bin/<name>-<version>).
#
#   start.sh run -- CMD [ARGS...]   start, run CMD with KUBECONFIG set, always stop; exits with CMD's status
#   start.sh start                  start in the background; prints `export KUBECONFIG=... CLUSTER_STATE_DIR=...`
#                                   (use: eval "$(hack/cluster/start.sh start)")
#   start.sh stop [STATE_DIR]       stop that instance by its recorded PIDs and delete its state dir
#
# Environment: BIN_DIR (default .cache/bin), WITH_CONTROLLER_MANAGER=1 (HPA, clusterrole aggregation,
# namespace and workload controllers; there is never a scheduler or a node), WITH_KAPP_CONTROLLER=1 (its CRDs
# and its controller, out of cluster, without its packaging API server), STARTUP_TIMEOUT (s, default 90),
# KEEP_STATE=1 (keep logs and certs), FAST_STOP=1 (SIGKILL: the data is thrown away anyway).
# Needs bash, openssl, curl.
set -euo pipefail
shopt -s inherit_errexit

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BIN_DIR=${BIN_DIR:-$ROOT/.cache/bin}
# the versions the go.mod files pin (tools.sh and build.sh build them)
mod_version() { awk -v m="$2" '$1 == "require" && $2 == m { print $3; exit } $1 == m { print $2; exit }' "$ROOT/$1"; }
K8S_VERSION=$(mod_version hack/cluster/k8s/go.mod k8s.io/kubernetes)
ETCD=$BIN_DIR/etcd-$(mod_version hack/cluster/etcd/go.mod go.etcd.io/etcd/server/v3)
KUBE_APISERVER=$BIN_DIR/kube-apiserver-$K8S_VERSION
KUBE_CONTROLLER_MANAGER=$BIN_DIR/kube-controller-manager-$K8S_VERSION
KAPP_CONTROLLER=$BIN_DIR/kapp-controller-$(mod_version hack/cluster/kappctrl/go.mod github.com/vmware-tanzu/carvel-kapp-controller)
VENDIR=$BIN_DIR/vendir-$(mod_version hack/cluster/vendir/go.mod carvel.dev/vendir)
KAPP=$BIN_DIR/kapp-$(mod_version go.mod carvel.dev/kapp)
YTT=$BIN_DIR/ytt-$(mod_version go.mod carvel.dev/ytt)
STARTUP_TIMEOUT=${STARTUP_TIMEOUT:-90}

log() { echo "start.sh: $*" >&2; }
die() { log "ERROR: $*"; exit 1; }
now() { echo "$EPOCHREALTIME"; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1fs", b - a }'; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# alive PID: running and not a zombie (the servers are reparented to PID 1, which may reap late).
alive() { kill -0 "$1" 2>/dev/null && [[ $(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null) != Z* ]]; }

# stop_instance DIR: TERM (or KILL) the recorded PIDs in reverse start order, then remove DIR.
stop_instance() {
  local dir=$1 name pid sig=TERM
  [[ -d $dir ]] || return 0
  [[ ${FAST_STOP:-} == 1 ]] && sig=KILL
  for name in kapp-controller kapp-controller-sidecarexec kube-controller-manager kube-apiserver etcd; do
    [[ -f $dir/$name.pid ]] || continue
    pid=$(<"$dir/$name.pid")
    kill "-$sig" "$pid" 2>/dev/null || true
    for _ in $(seq 150); do alive "$pid" || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    rm -f "$dir/$name.pid"
  done
  if [[ ${KEEP_STATE:-} == 1 ]]; then log "state kept in $dir"; else rm -rf "$dir"; fi
}

gen_certs() { # DIR: a CA, a serving cert for 127.0.0.1, admin (system:masters) and controller-manager client certs
  cat >"$1/openssl.cnf" <<'EOF'
[req]
distinguished_name = dn
prompt = no
[dn]
CN = throwaway
[ca]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign,digitalSignature
[server]
keyUsage = critical,digitalSignature,keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1,DNS:localhost,IP:10.0.0.1,DNS:kubernetes.default.svc
[client]
keyUsage = critical,digitalSignature,keyEncipherment
extendedKeyUsage = clientAuth
EOF
  (
    cd "$1"
    for k in ca server admin kcm sa; do openssl ecparam -name prime256v1 -genkey -noout -out $k.key; done
    openssl ec -in sa.key -pubout -out sa.pub 2>/dev/null
    openssl req -x509 -new -key ca.key -config openssl.cnf -extensions ca -subj /CN=throwaway-ca -days 3650 -out ca.crt
    for s in "server /CN=kube-apiserver server" "admin /O=system:masters/CN=admin client" \
      "kcm /CN=system:kube-controller-manager client"; do
      set -- $s
      openssl req -new -key "$1.key" -config openssl.cnf -subj "$2" -out "$1.csr"
      openssl x509 -req -in "$1.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -days 3650 \
        -extfile openssl.cnf -extensions "$3" -out "$1.crt" 2>/dev/null
    done
  )
}

write_kubeconfig() { # FILE URL USER
  local d; d=$(dirname "$1")
  cat >"$1" <<EOF
apiVersion: v1
kind: Config
clusters: [{name: throwaway, cluster: {server: "$2", certificate-authority: "$d/ca.crt"}}]
users: [{name: user, user: {client-certificate: "$d/$3.crt", client-key: "$d/$3.key"}}]
contexts: [{name: throwaway, context: {cluster: throwaway, user: user, namespace: default}}]
current-context: throwaway
EOF
}

# wait_for NAME CHECK...: poll CHECK every 0.1s while NAME's process lives; show its log tail on failure.
wait_for() {
  local name=$1; shift
  for _ in $(seq $((STARTUP_TIMEOUT * 10))); do
    "$@" && return 0
    alive "$(<"$D/$name.pid")" || { tail -30 "$D/$name.log" >&2; die "$name exited"; }
    sleep 0.1
  done
  tail -30 "$D/$name.log" >&2
  die "$name not ready after ${STARTUP_TIMEOUT}s"
}

api_ready() { [[ $(curl -s "${CURL[@]}" "$API_URL/readyz") == ok ]] && curl -sf "${CURL[@]}" "$API_URL/api/v1/namespaces/default" >/dev/null; }
# healthz answers ok ~4s before the controllers run (kcm first builds them all, then starts them
# together): until then a Deployment gets no revision annotation and an aggregated ClusterRole no
# rules, and what a scenario captures depends on the machine's load. The ServiceAccount controller,
# started with the others, creating the default namespace's ServiceAccount shows they run.
kcm_ready() {
  [[ $(curl -sk "https://127.0.0.1:$KCM_PORT/healthz") == ok ]] &&
    curl -sf "${CURL[@]}" "$API_URL/api/v1/namespaces/default/serviceaccounts/default" >/dev/null
}
crds_ready() {
  curl -sf "${CURL[@]}" "$API_URL/apis/kappctrl.k14s.io/v1alpha1" | grep -q '"name": *"apps"' &&
    curl -sf "${CURL[@]}" "$API_URL/apis/data.packaging.carvel.dev/v1alpha1" | grep -q '"name": *"packages"'
}
kc_ready() { grep -q '"Starting workers".*"controller":"app"' "$D/kapp-controller.log"; }
sidecar_ready() { [[ -S $D/kc-sidecarexec.sock ]]; }

# start_kapp_controller: its CRDs from the module it was built from, then, out of cluster with the
# admin kubeconfig, the controller and the sidecar that runs ytt and vendir for it (in a pod they are
# two containers talking over a unix socket). kapp, ytt and vendir are found on PATH by those names.
# No listener: no packaging API server, metrics off, no pprof.
start_kapp_controller() {
  local f
  mkdir "$D/kc-crds" "$D/kc-bin" "$D/kc-tmp"
  awk -v d="$D/kc-crds" '/^---$/ { n++; next } { print > (d "/" n+0 ".yml") }' "$KAPP_CONTROLLER-crds.yml"
  # Packages are served by kapp-controller's packaging API server (an aggregated API), which does not
  # run here; its PackageInstall controller still watches them and, without the kind, stops the
  # whole controller after 2 minutes. A schemaless CRD stands in for the kind (nothing creates one).
  cat >"$D/kc-crds/packages-stand-in.yml" <<'EOF'
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: packages.data.packaging.carvel.dev}
spec:
  group: data.packaging.carvel.dev
  names: {kind: Package, listKind: PackageList, plural: packages, singular: package}
  scope: Namespaced
  versions:
  - {name: v1alpha1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}
EOF
  for f in "$D"/kc-crds/*.yml; do
    curl -sf "${CURL[@]}" -o /dev/null -X POST -H 'Content-Type: application/yaml' --data-binary "@$f" \
      "$API_URL/apis/apiextensions.k8s.io/v1/customresourcedefinitions" || die "installing CRD $f failed"
  done
  wait_for kube-apiserver crds_ready
  ln -s "$KAPP" "$D/kc-bin/kapp"; ln -s "$YTT" "$D/kc-bin/ytt"; ln -s "$VENDIR" "$D/kc-bin/vendir"
  (
    export PATH=$D/kc-bin:$PATH KUBECONFIG=$D/kubeconfig KAPPCTRL_SIDECAREXEC_SOCK=$D/kc-sidecarexec.sock \
      KAPPCTRL_MEM_TMP_DIR=$D/kc-tmp KAPPCTRL_SYSTEM_NAMESPACE=default
    (exec -a kapp-controller "$KAPP_CONTROLLER" --sidecarexec) </dev/null >"$D/kapp-controller-sidecarexec.log" 2>&1 &
    echo $! >"$D/kapp-controller-sidecarexec.pid"
    wait_for kapp-controller-sidecarexec sidecar_ready
    (exec -a kapp-controller "$KAPP_CONTROLLER" --start-api-server=false --metrics-bind-address=0) \
      </dev/null >"$D/kapp-controller.log" 2>&1 &
    echo $! >"$D/kapp-controller.pid"
  )
  wait_for kapp-controller kc_ready
}

# start_instance: runs in $(...), prints the state dir; on failure stops whatever it started.
start_instance() {
  local b
  for b in "$ETCD" "$KUBE_APISERVER" ${WITH_CONTROLLER_MANAGER:+"$KUBE_CONTROLLER_MANAGER"} \
    ${WITH_KAPP_CONTROLLER:+"$KAPP_CONTROLLER" "$KAPP" "$YTT" "$VENDIR"}; do
    [[ -x $b ]] || die "$b missing: run hack/tools.sh"
  done
  D=$(mktemp -d "${TMPDIR:-/tmp}/rebasegen-cluster.XXXXXX")
  trap 'stop_instance "$D"' EXIT
  local t0; t0=$(now)
  gen_certs "$D"

  local etcd_port peer_port api_port
  etcd_port=$(free_port) peer_port=$(free_port) api_port=$(free_port)
  local etcd_url=http://127.0.0.1:$etcd_port peer_url=http://127.0.0.1:$peer_port
  API_URL=https://127.0.0.1:$api_port
  CURL=(--cacert "$D/ca.crt" --cert "$D/admin.crt" --key "$D/admin.key")
  "$ETCD" --name=default --data-dir="$D/etcd-data" --log-level=warn --unsafe-no-fsync \
    --listen-client-urls="$etcd_url" --advertise-client-urls="$etcd_url" \
    --listen-peer-urls="$peer_url" --initial-advertise-peer-urls="$peer_url" \
    --initial-cluster="default=$peer_url" --initial-cluster-state=new </dev/null >"$D/etcd.log" 2>&1 &
  echo $! >"$D/etcd.pid"
  wait_for etcd curl -sf "$etcd_url/health" -o /dev/null

  # --watch-cache=false and no compaction: internal/scenario replays each object's full history from
  # etcd (a watch from an old resourceVersion) to tell creation-time defaults from later changes.
  # exec -a: clients name their field manager after argv[0]; managedFields must say kube-apiserver
  # and kube-controller-manager as on real clusters, not the versioned file names
  (exec -a kube-apiserver "$KUBE_APISERVER" --etcd-servers="$etcd_url" --watch-cache=false --etcd-compaction-interval=0 \
    --bind-address=127.0.0.1 --advertise-address=127.0.0.1 --secure-port="$api_port" \
    --cert-dir="$D/apiserver-certs" --tls-cert-file="$D/server.crt" --tls-private-key-file="$D/server.key" \
    --client-ca-file="$D/ca.crt" --service-account-issuer=https://kubernetes.default.svc.cluster.local \
    --service-account-key-file="$D/sa.pub" --service-account-signing-key-file="$D/sa.key" \
    --service-cluster-ip-range=10.0.0.0/24 --authorization-mode=RBAC --endpoint-reconciler-type=none \
    --allow-privileged=true --profiling=false) </dev/null >"$D/kube-apiserver.log" 2>&1 &
  echo $! >"$D/kube-apiserver.pid"
  write_kubeconfig "$D/kubeconfig" "$API_URL" admin
  wait_for kube-apiserver api_ready

  if [[ ${WITH_CONTROLLER_MANAGER:-} == 1 ]]; then
    KCM_PORT=$(free_port)
    write_kubeconfig "$D/kcm.kubeconfig" "$API_URL" kcm
    # no nodes: leave out the controllers that need them (the cloud controllers left
    # kube-controller-manager in v1.37, which exits at start when --controllers names one). The HPA
    # controller handles a new HPA only after one sync period (default 15s): 2s keeps scenarios and
    # tests fast.
    (exec -a kube-controller-manager "$KUBE_CONTROLLER_MANAGER" --kubeconfig="$D/kcm.kubeconfig" \
      --authentication-kubeconfig="$D/kcm.kubeconfig" --authorization-kubeconfig="$D/kcm.kubeconfig" \
      --bind-address=127.0.0.1 --secure-port="$KCM_PORT" --cert-dir="$D/kcm-certs" --leader-elect=false \
      --service-account-private-key-file="$D/sa.key" --root-ca-file="$D/ca.crt" \
      --use-service-account-credentials=true --service-cluster-ip-range=10.0.0.0/24 \
      --horizontal-pod-autoscaler-sync-period=2s \
      --controllers='*,-nodeipam,-nodelifecycle') \
      </dev/null >"$D/kube-controller-manager.log" 2>&1 &
    echo $! >"$D/kube-controller-manager.pid"
    wait_for kube-controller-manager kcm_ready
  else
    # nobody else creates the default ServiceAccount (409 when it exists is fine)
    curl -s "${CURL[@]}" -o /dev/null -X POST -H 'Content-Type: application/json' \
      -d '{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"default"}}' \
      "$API_URL/api/v1/namespaces/default/serviceaccounts"
  fi
  if [[ ${WITH_KAPP_CONTROLLER:-} == 1 ]]; then start_kapp_controller; fi
  trap - EXIT
  log "cluster ready in $(since "$t0")${WITH_CONTROLLER_MANAGER:+ (with kube-controller-manager)}${WITH_KAPP_CONTROLLER:+ (with kapp-controller)}: $API_URL, state $D"
  echo "$D"
}

cmd=${1:-}
shift || true
case $cmd in
start)
  d=$(start_instance)
  printf 'export KUBECONFIG=%q CLUSTER_STATE_DIR=%q\n' "$d/kubeconfig" "$d"
  ;;
stop)
  d=${1:-${CLUSTER_STATE_DIR:-}}
  [[ -n $d ]] || die "usage: $0 stop STATE_DIR (or set CLUSTER_STATE_DIR)"
  stop_instance "$d"
  ;;
run)
  [[ ${1:-} == -- ]] && shift
  [[ $# -gt 0 ]] || die "usage: $0 run -- CMD [ARGS...]"
  d=$(start_instance)
  child=
  trap 'stop_instance "$d"' EXIT
  # run CMD in the background and `wait`, so that INT/TERM reach us at once
  trap '[[ -n $child ]] && kill -TERM "$child" 2>/dev/null; exit 130' INT TERM
  KUBECONFIG=$d/kubeconfig CLUSTER_STATE_DIR=$d "$@" <&0 &
  child=$!
  rc=0
  wait "$child" || rc=$?
  exit $rc
  ;;
*)
  sed -n '2,13p' "$0" >&2
  exit 2
  ;;
esac
