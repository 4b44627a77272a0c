# shellcheck shell=bash disable=SC2034
# Common settings and helpers of the xstack test cluster (sourced by cluster/*).
#
# Layout (see docs/CLUSTER.md):
#   netns xstack-head   : the "switch + login node": bridge br0 (198.18.0.1/24),
#                         slurmctld, and where cluster/mpirun and cluster/srun run.
#   netns xstack-nodeI  : node I, eth0 = 198.18.0.(10+I)/24, veth to br0.
#   Every process of a node runs in its own mount+UTS namespace: hostname nodeI,
#   /local = $XSTACK_CLUSTER_DIR/nodeI/local, /tmp = $XSTACK_CLUSTER_DIR/nodeI/tmp,
#   /etc/hosts = $XSTACK_CLUSTER_DIR/hosts. Everything else of the host is visible.
# Nothing is ever placed in the host's network namespace: no address, no route.

XSC_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
XSC_DIR="${XSTACK_CLUSTER_DIR:-/var/tmp/xstack-cluster}"
XSC_PREFIX="xstack"
XSC_HEAD_NS="${XSC_PREFIX}-head"
XSC_SUBNET="198.18.0.0/24"
XSC_HEAD_IP="198.18.0.1"
XSC_STATE="$XSC_DIR/cluster.env"
XSC_SLURM_DIR="$XSC_DIR/slurm"
XSC_MUNGE_DIR="$XSC_DIR/munge"
XSC_SLURM_CONF="$XSC_SLURM_DIR/slurm.conf"
XSC_MUNGE_SOCKET="$XSC_MUNGE_DIR/munge.socket"
XSC_TIMEOUT="${XSTACK_CLUSTER_TIMEOUT:-600}"

xsc_log() { printf 'cluster: %s\n' "$*" >&2; }
# Under set -e a failing command (also inside $(...), with errtrace) names itself before the exit.
if [[ $- == *e* ]]; then
    set -E
    # shellcheck disable=SC2154
    trap 'xsc_rc=$?; printf "cluster: error: %s: line %s: \"%s\" exited %s\n" "${0##*/}" "$LINENO" "$BASH_COMMAND" "$xsc_rc" >&2' ERR
fi
xsc_die() { printf 'cluster: error: %s\n' "$*" >&2; exit 1; }

xsc_need_root() {
    [ "$(id -u)" = 0 ] || xsc_die "must run as root (network and mount namespaces)"
}

xsc_node_ns() { printf '%s-%s' "$XSC_PREFIX" "$1"; }            # node1 -> xstack-node1
xsc_node_ip() { printf '198.18.0.%d' $((10 + ${1#node})); }     # node1 -> 198.18.0.11

# Number of nodes of the running cluster (from the state file), or fail.
xsc_nodes() {
    [ -f "$XSC_STATE" ] || xsc_die "no cluster is up (no $XSC_STATE); run cluster/up first"
    # shellcheck disable=SC1090
    ( . "$XSC_STATE"; printf '%s' "$NODES" )
}
xsc_slurm_up() {
    [ -f "$XSC_STATE" ] || return 1
    # shellcheck disable=SC1090
    ( . "$XSC_STATE"; [ "${SLURM:-0}" = 1 ] )
}

# Map a host name as OpenMPI/Slurm may give it (node2, node2.x, 198.18.0.12) to nodeI.
xsc_resolve_node() {
    local h="${1%%.*}"
    case "$1" in
        198.18.0.*) local o="${1##*.}"; h="node$((o - 10))" ;;
    esac
    case "$h" in
        node[0-9]*) [ -e "/run/netns/$(xsc_node_ns "$h")" ] || return 1; printf '%s' "$h" ;;
        head) printf 'head' ;;
        *) return 1 ;;
    esac
}

# Shell snippet run inside the fresh mount+UTS namespace of a node before exec'ing the command.
# $0 = node name, "$@" = command.
XSC_NODE_SETUP='set -e
d="$XSC_DIR_IN"
hostname "$0"
mount --bind "$d/hosts" /etc/hosts
if [ "$0" != head ]; then
  mount --bind "$d/$0/local" /local
  mount --bind "$d/$0/tmp" /tmp
fi
cd "$XSC_CWD_IN" 2>/dev/null || cd /
unset XSC_DIR_IN XSC_CWD_IN
exec "$@"'

# xsc_exec NODE CMD... : run CMD inside node NODE (or "head"), replacing this shell.
# nsenter (not ip netns exec: that remounts /sys, slurmd then loses the cgroup mounts).
xsc_exec() {
    local node="$1"; shift
    local ns
    if [ "$node" = head ]; then ns="$XSC_HEAD_NS"; else ns="$(xsc_node_ns "$node")"; fi
    [ -e "/run/netns/$ns" ] || xsc_die "node $node is not up (no /run/netns/$ns)"
    XSC_DIR_IN="$XSC_DIR" XSC_CWD_IN="$PWD" exec nsenter --net="/run/netns/$ns" -- \
        unshare --mount --uts --propagation private -- /bin/sh -c "$XSC_NODE_SETUP" "$node" "$@"
}

# Packages: install what is missing (CI machines start with nothing installed by hand).
# dpkg-query exits 1 for a package that was never installed: the probe is a condition (never a
# bare $(...)), so under set -euo pipefail an absent package means "install it", not a silent exit.
xsc_pkg_installed() {  # package -> 0 if installed
    local status
    status="$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" || return 1
    [ "$status" = "install ok installed" ]
}
xsc_ensure_pkgs() {  # packages...
    local missing=() p
    command -v dpkg-query >/dev/null 2>&1 \
        || xsc_die "dpkg-query not found: this needs a Debian/Ubuntu machine; install by hand: $*"
    for p in "$@"; do
        xsc_pkg_installed "$p" || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    xsc_log "installing packages: ${missing[*]}"
    [ "$(id -u)" = 0 ] || xsc_die "packages missing (${missing[*]}) and not root: run as root, or apt-get install them first"
    command -v apt-get >/dev/null 2>&1 || xsc_die "apt-get not found; install by hand: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    local log
    log="$(mktemp)" || xsc_die "mktemp failed (is \$TMPDIR writable?)"
    # An interrupted dpkg run (a package left "unpacked") makes every apt-get install fail
    # until it is finished.
    if [ -n "$(dpkg --audit 2>/dev/null || true)" ]; then
        xsc_log "an earlier dpkg run was interrupted; finishing it (dpkg --configure -a)"
        dpkg --configure -a >"$log" 2>&1 || true
        apt-get install -y -qq -f >>"$log" 2>&1 || true
    fi
    if ! timeout 600 apt-get update -qq >"$log" 2>&1; then
        cat "$log" >&2; rm -f "$log"
        xsc_die "apt-get update failed (network or apt sources?); then install by hand: apt-get install ${missing[*]}"
    fi
    if ! timeout 900 apt-get install -y -qq --no-install-recommends "${missing[@]}" >"$log" 2>&1; then
        tail -n 30 "$log" >&2; rm -f "$log"
        xsc_die "apt-get install ${missing[*]} failed (see above); fix apt, or install them by hand"
    fi
    rm -f "$log"
    for p in "${missing[@]}"; do
        xsc_pkg_installed "$p" || xsc_die "package $p is still not installed after apt-get install"
    done
}

# Wait (bounded) until a command succeeds.
xsc_wait() {  # seconds description cmd...
    local secs="$1" what="$2"; shift 2
    local end=$((SECONDS + secs))
    until "$@" >/dev/null 2>&1; do
        [ $SECONDS -ge $end ] && return 1
        sleep 0.2
    done
}

xsc_pid_alive() { [ -n "$1" ] && kill -0 "$1" 2>/dev/null; }
xsc_pidfile_alive() { [ -s "$1" ] && xsc_pid_alive "$(cat "$1")"; }

# Run a Slurm client command (srun, sbatch, ...) against the cluster, from the head node.
xsc_slurm_cmd() {
    xsc_need_root
    xsc_slurm_up || xsc_die "Slurm is not up; run cluster/up --slurm"
    export SLURM_CONF="$XSC_SLURM_CONF"
    # OpenMPI 4.1.4 + Slurm 22.05 PMIx: MPI_Init's modex fence followed by its barrier fence
    # crashes a rank now and then (SIGSEGV in mca_btl_tcp). Without the modex fence (peers' data
    # fetched on demand) no launch of 1 task per node failed (0/400), but 2 tasks per node fail
    # more often ("PML add procs failed: Not found"); see docs/CLUSTER.md. Jobs inherit this
    # (sbatch/salloc export the environment); set the variables to override.
    export OMPI_MCA_pmix_base_async_modex="${OMPI_MCA_pmix_base_async_modex:-1}"
    export OMPI_MCA_pmix_base_collect_data="${OMPI_MCA_pmix_base_collect_data:-0}"
    exec timeout -k 10 "$XSC_TIMEOUT" "$XSC_ROOT/exec" head "$@"
}
