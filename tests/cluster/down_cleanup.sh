#!/usr/bin/env bash
# Cluster test (d): cluster/down leaves nothing behind (no namespace, link, address, route, mount,
# process or file of the cluster) and removes nothing else, also when a test fails half-way or is
# killed while jobs run (the EXIT trap of tests/cluster/lib.sh). Also: cluster/up is idempotent
# and fails with a clear message on bad input.
# usage: tests/cluster/down_cleanup.sh [XSTACK]   (xstack is not needed by this test)
. "$(dirname "$0")/lib.sh"
t_require_root
trap 't_final' EXIT
D="$XSTACK_CLUSTER_DIR"
SNAP="$(mktemp -d)"
DECOY_NS="decoy-$$"
t_final() {
    local rc=$?
    trap - EXIT
    ip netns pids "$DECOY_NS" 2>/dev/null | xargs -r kill -KILL 2>/dev/null
    ip netns del "$DECOY_NS" 2>/dev/null
    "$T_CLUSTER/down" >/dev/null 2>&1
    rm -rf "$SNAP"
    if [ $rc -eq 0 ]; then echo "[$T_NAME] PASS in $((SECONDS - T_START))s"; else echo "[$T_NAME] FAIL after $((SECONDS - T_START))s" >&2; fi
    exit $rc
}

host_state() {  # what the host shows; must be the same before up and after down
    ip -o link show | sed -E 's/^[0-9]+: //; s/ state [A-Z]+.*//'
    ip -o addr show | awk '{print $2, $3, $4}'
    ip route show table all
    ip netns list | awk '{print $1}' | sort
    awk '{print $5, $9}' /proc/self/mountinfo | sort
}
cluster_procs() {  # running processes in the recorded namespaces or naming the cluster's folder
    local p st
    {
        # pid of every process whose network namespace was one of the cluster's
        { stat -L -c '%i %n' /proc/[0-9]*/ns/net 2>/dev/null || true; } \
            | awk 'FILENAME == ARGV[1] { ns[$1] = 1; next } ($1 in ns) { split($2, a, "/"); print a[3] }' \
                "$SNAP/ns-inodes" -
        # pid of every process whose command line names the cluster's folder
        grep -l -a -F "$D/" /proc/[0-9]*/cmdline 2>/dev/null | cut -d/ -f3 || true
    } | sort -un | while read -r p; do
        [ "$p" = "$$" ] || [ "$p" = "$BASHPID" ] && continue
        { read -r st <"/proc/$p/stat"; } 2>/dev/null || continue
        st="${st##*) }"; st="${st%% *}"
        [ "$st" = Z ] && continue
        echo "$p $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)"
    done
    return 0
}
check_clean() {  # label
    local label="$1"
    ip netns list | grep -E '^xstack-(head|node[0-9]+)( |$)' && t_fail "$label: cluster namespaces left"
    host_state >"$SNAP/after"
    diff "$SNAP/before" "$SNAP/after" >&2 || t_fail "$label: host network/mount state changed"
    local left; left="$(cluster_procs)"
    [ -z "$left" ] || t_fail "$label: processes left: $left"
    [ -e "$D/cluster.env" ] && t_fail "$label: $D/cluster.env left"
    ls -d "$D"/node* "$D/slurm" "$D/munge" "$D/shared" "$D/bin" 2>/dev/null && t_fail "$label: cluster files left in $D"
    [ -f "$D/keep-me" ] || t_fail "$label: cluster/down removed a file it did not make ($D/keep-me)"
    ip netns pids "$DECOY_NS" | grep . >/dev/null || t_fail "$label: cluster/down killed a process it did not start"
    t_log "$label: nothing left behind"
}

# A decoy namespace with a process, and a user file in the cluster folder: down must keep both.
"$T_CLUSTER/down" >/dev/null 2>&1 || true
mkdir -p "$D" && echo keep >"$D/keep-me"
ip netns add "$DECOY_NS"
ip netns exec "$DECOY_NS" sleep 600 </dev/null >/dev/null 2>&1 &
disown $!
sleep 0.2
host_state >"$SNAP/before"
grep -q "$DECOY_NS" "$SNAP/before" || t_fail "decoy namespace not set up"

# --- 1. bad input: clear non-zero exit
if out="$("$T_CLUSTER/up" --nodes 0 2>&1)"; then t_fail "cluster/up --nodes 0 succeeded"; fi
grep -q 'error' <<<"$out" || t_fail "cluster/up --nodes 0 gave no clear message: $out"
if "$T_CLUSTER/mpirun" -np 1 true 2>/dev/null; then t_fail "cluster/mpirun succeeded with no cluster up"; fi
t_log "bad input and commands without a cluster fail clearly"

# --- 2. a test that fails half-way: its trap must bring everything down
CHILD="$SNAP/child.sh"
cat >"$CHILD" <<EOF
#!/usr/bin/env bash
. "$T_REPO/tests/cluster/lib.sh" "\$1"
t_cluster_up --nodes 3 --slurm
for n in /run/netns/xstack-*; do stat -L -c %i "\$n"; done >"$SNAP/ns-inodes"
# idempotent: a second up changes nothing and succeeds
"$T_CLUSTER/up" --slurm
"$T_CLUSTER/up" --nodes 2 2>/dev/null && { echo "up --nodes 2 on a 3-node cluster succeeded"; exit 3; }
# jobs that would outlive a careless teardown
"$T_CLUSTER/srun" -N3 sleep 300 >/dev/null 2>&1 &
"$T_CLUSTER/mpirun" -np 3 --map-by ppr:1:node sleep 300 >/dev/null 2>&1 &
"$T_CLUSTER/sbatch" -N2 -D / -o /dev/null --wrap 'srun sleep 300' >/dev/null
for _ in \$(seq 1 100); do
    [ "\$(pgrep -c -x sleep)" -ge 9 ] && break; sleep 0.1
done
echo ready >"$SNAP/ready"
case "\$2" in
    fail) false ;;                        # set -e: the test fails half-way
    wait) while :; do sleep 0.2; done ;;  # killed by the parent with SIGTERM
esac
EOF
chmod +x "$CHILD"

rm -f "$SNAP/ready"
if bash "$CHILD" "$XSTACK" fail >"$SNAP/child.log" 2>&1; then cat "$SNAP/child.log" >&2; t_fail "child test did not fail"; fi
[ -f "$SNAP/ready" ] || { cat "$SNAP/child.log" >&2; t_fail "child test failed before its jobs ran"; }
[ -s "$SNAP/ns-inodes" ] || t_fail "child recorded no namespaces"
check_clean "after a test failed half-way"

# --- 3. a test killed (SIGTERM) while its jobs run
rm -f "$SNAP/ready" "$SNAP/ns-inodes"
bash "$CHILD" "$XSTACK" wait >"$SNAP/child.log" 2>&1 &
CPID=$!
for _ in $(seq 1 600); do [ -f "$SNAP/ready" ] && break; kill -0 $CPID 2>/dev/null || break; sleep 0.1; done
[ -f "$SNAP/ready" ] || { cat "$SNAP/child.log" >&2; t_fail "child test did not get its jobs running"; }
t_log "jobs running: $(pgrep -c -x sleep) sleep processes; sending SIGTERM to the test"
kill -TERM $CPID
timeout 120 tail --pid=$CPID -f /dev/null || t_fail "killed test did not end"
wait $CPID && t_fail "killed child exited 0"
check_clean "after a test was killed"

# --- 4. down with nothing up is fine
"$T_CLUSTER/down" || t_fail "cluster/down with nothing up failed"
"$T_CLUSTER/down" || t_fail "cluster/down twice failed"
check_clean "after down on nothing"
rm -f "$D/keep-me"; rmdir "$D" 2>/dev/null || true
