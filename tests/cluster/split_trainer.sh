#!/usr/bin/env bash
# Cluster test (c): a trainer's files split across two nodes (a node holds only some ranks of a
# trainer), a node that holds no file at all, and a mix of node-local and shared folders. Traces byte-identical to the
# single-process run; every file read once, on the node that holds it.
# usage: tests/cluster/split_trainer.sh [XSTACK]
. "$(dirname "$0")/lib.sh"
t_require_root
t_require_xstack
t_cluster_up --nodes 4

t_synth_and_reference "$T_WORK/all" "$T_WORK/ref"
# 3 trainers x 2 GPUs = ranks 0..5. node1: ranks 0,1,2; node2: ranks 3,4; node3: rank 5.
# Trainer 1 (ranks 2,3) spans node1+node2, trainer 2 (ranks 4,5) spans node2+node3.
# Trainer 1's dcgm log is on node3 (which holds none of its ranks), its net log on node2.
# node4 holds nothing: its rank reads no file.
split() {
    local f="$1" r t
    case "$f" in
        profile/*|time/*)
            r="$(t_file_rank "$f")"
            if [ "$r" -le 2 ]; then echo 1; elif [ "$r" -le 4 ]; then echo 2; else echo 3; fi ;;
        *)
            t="$(t_file_trainer "$f")"
            case "$t:${f%%/*}" in 0:*) echo 1 ;; 1:dcgm) echo 3 ;; 1:net) echo 2 ;; *) echo 3 ;; esac ;;
    esac
}
t_distribute "$T_WORK/all" split "$T_WORK/placement"

t_report_mpirun "$T_WORK/mpi1" -np 4 --map-by ppr:1:node -- --data-dir /local/data --plan
t_same_traces "$T_WORK/ref" "$T_WORK/mpi1" "split trainers, 1 rank/node"
t_check_plan "$T_WORK/mpi1.stderr" "$T_WORK/placement" "$T_WORK/all" /local/data "split trainers, 1 rank/node"

t_report_mpirun "$T_WORK/mpi2" -np 8 --map-by ppr:2:node -- --data-dir /local/data --plan
t_same_traces "$T_WORK/ref" "$T_WORK/mpi2" "split trainers, 2 ranks/node"
t_check_plan "$T_WORK/mpi2.stderr" "$T_WORK/placement" "$T_WORK/all" /local/data "split trainers, 2 ranks/node"

# Mix: profiles and time files node-local (as placed above), dcgm and net logs on the shared folder.
grep -E '^node[0-9]+ (profile|time)/' "$T_WORK/placement" >"$T_WORK/expected-mix"
(cd "$T_WORK/all" && find dcgm net -type f | sed 's|^|* |' | sort) >"$T_WORK/expected-mix-shared"
t_report_mpirun "$T_WORK/mix" -np 4 --map-by ppr:1:node -- \
    --profile-dir /local/data/profile --time-dir /local/data/time \
    --dcgm-dir "$T_WORK/all/dcgm" --net-dir "$T_WORK/all/net" --plan
t_same_traces "$T_WORK/ref" "$T_WORK/mix" "local + shared mix"
grep -v -E " $T_WORK/all/" "$T_WORK/mix.stderr" >"$T_WORK/mix.local.stderr" || true
grep -v -E " /local/data/" "$T_WORK/mix.stderr" >"$T_WORK/mix.shared.stderr" || true
t_check_plan "$T_WORK/mix.local.stderr" "$T_WORK/expected-mix" "$T_WORK/all" /local/data "local + shared mix (local part)"
t_check_plan "$T_WORK/mix.shared.stderr" "$T_WORK/expected-mix-shared" "$T_WORK/all" "$T_WORK/all" "local + shared mix (shared part)"
