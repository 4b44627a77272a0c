#!/usr/bin/env bash
# Cluster smoke test (no xstack needed): nodes, their private /local and /tmp, cluster/mpirun,
# cluster/srun --mpi=pmix and cluster/sbatch with a tiny MPI program built with mpicc.
# usage: tests/cluster/smoke.sh
. "$(dirname "$0")/lib.sh"
t_require_root
t_cluster_up --nodes 3 --slurm
for i in 1 2 3; do echo "n$i" >"$XSTACK_CLUSTER_DIR/node$i/local/marker"; done

# each node: its hostname, its /local, its own /tmp, only cluster addresses
for i in 1 2 3; do
    got="$("$T_CLUSTER/exec" "node$i" sh -c 'echo "$(hostname) $(cat /local/marker)"; touch /tmp/only-on-node'"$i"'; ls /tmp')"
    [ "$got" = "node$i n$i
only-on-node$i" ] || t_fail "node$i view: $got"
    addrs="$("$T_CLUSTER/exec" "node$i" ip -o -4 addr show | awk '{print $4}' | sort | tr '\n' ' ')"
    [ "$addrs" = "127.0.0.1/8 198.18.0.$((10 + i))/24 " ] || t_fail "node$i addresses: $addrs"
done
[ -e /tmp/only-on-node1 ] && t_fail "a node's /tmp is the host's"
t_log "nodes: own hostname, /local, /tmp; addresses 198.18.0.0/24 only"

t_launch "cluster/mpirun hostname" "$T_WORK/o" "$T_WORK/e" "$T_CLUSTER/mpirun" -np 3 --map-by ppr:1:node hostname \
    || t_fail "cluster/mpirun hostname failed"
got="$(sort "$T_WORK/o" | tr '\n' ' ')"
[ "$got" = "node1 node2 node3 " ] || t_fail "cluster/mpirun hostname: $got"
t_log "cluster/mpirun -np 3 --map-by ppr:1:node hostname: $got"

mpicc -O1 -o "$T_WORK/hello_mpi" "$T_REPO/tests/cluster/hello_mpi.c" || t_fail "mpicc failed"
want="$(for r in 0 1 2 3 4 5; do n=$((r / 2 + 1)); echo "rank $r of 6 on node$n local n$n sum 15"; done)"
t_launch "cluster/mpirun hello_mpi" "$T_WORK/o" "$T_WORK/e" \
    "$T_CLUSTER/mpirun" -np 6 --map-by ppr:2:node "$T_WORK/hello_mpi" || t_fail "cluster/mpirun hello_mpi failed"
got="$(sort "$T_WORK/o")"
[ "$got" = "$want" ] || t_fail "cluster/mpirun hello_mpi: $got"
t_log "cluster/mpirun: hello_mpi on 6 ranks, 2 per node"

t_launch "cluster/srun hostname" "$T_WORK/o" "$T_WORK/e" "$T_CLUSTER/srun" -N3 --mpi=pmix hostname \
    || t_fail "cluster/srun hostname failed"
got="$(sort "$T_WORK/o" | tr '\n' ' ')"
[ "$got" = "node1 node2 node3 " ] || t_fail "cluster/srun hostname: $got"
t_launch "cluster/srun hello_mpi" "$T_WORK/o" "$T_WORK/e" \
    "$T_CLUSTER/srun" -N3 --ntasks-per-node=2 --mpi=pmix "$T_WORK/hello_mpi" || t_fail "cluster/srun --mpi=pmix hello_mpi failed"
got="$(sort "$T_WORK/o")"
[ "$got" = "$want" ] || t_fail "cluster/srun --mpi=pmix hello_mpi: $got"
t_log "cluster/srun --mpi=pmix: hello_mpi on 6 tasks, 2 per node"

got="$("$T_CLUSTER/sinfo" -h -o '%D %T')"
[ "$got" = "3 idle" ] || t_fail "cluster/sinfo: $got"
t_sbatch_retry "$T_WORK/batch.out" -N3 --ntasks-per-node=1 -D "$T_WORK" -o "$T_WORK/batch.out" \
    --wrap "srun --mpi=pmix $T_WORK/hello_mpi" || { cat "$T_WORK/batch.out" >&2; t_fail "sbatch job failed"; }
[ "$(sort "$T_WORK/batch.out")" = "$(for r in 0 1 2; do echo "rank $r of 3 on node$((r + 1)) local n$((r + 1)) sum 3"; done)" ] \
    || { cat "$T_WORK/batch.out" >&2; t_fail "sbatch output"; }
t_log "cluster/sbatch: batch job with srun --mpi=pmix"
