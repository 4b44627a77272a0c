#!/usr/bin/env bash
# Cluster test (b): the whole data set on a folder every node sees at the same path (a shared
# file system), nothing in /local. Every file must be read exactly once (plan lines of rank 0),
# and the traces must be byte-identical to the single-process run.
# usage: tests/cluster/shared_fs.sh [XSTACK]
. "$(dirname "$0")/lib.sh"
t_require_root
t_require_xstack
t_cluster_up --nodes 3 --slurm

t_synth_and_reference "$T_WORK/all" "$T_WORK/ref"
(cd "$T_WORK/all" && find . -type f | sed 's|^\./|* |' | sort) >"$T_WORK/expected"

t_report_mpirun "$T_WORK/mpi1" -np 3 --map-by ppr:1:node -- --data-dir "$T_WORK/all" --plan
t_same_traces "$T_WORK/ref" "$T_WORK/mpi1" "shared FS, mpirun 1 rank/node"
t_check_plan "$T_WORK/mpi1.stderr" "$T_WORK/expected" "$T_WORK/all" "$T_WORK/all" "shared FS, mpirun 1 rank/node"

t_report_mpirun "$T_WORK/mpi2" -np 6 --map-by ppr:2:node -- --data-dir "$T_WORK/all" --plan
t_same_traces "$T_WORK/ref" "$T_WORK/mpi2" "shared FS, mpirun 2 ranks/node"
t_check_plan "$T_WORK/mpi2.stderr" "$T_WORK/expected" "$T_WORK/all" "$T_WORK/all" "shared FS, mpirun 2 ranks/node"

t_report_srun "$T_WORK/srun1" -N 3 --ntasks-per-node=1 --mpi=pmix -- --data-dir "$T_WORK/all" --plan
t_same_traces "$T_WORK/ref" "$T_WORK/srun1" "shared FS, srun --mpi=pmix"
t_check_plan "$T_WORK/srun1.stderr" "$T_WORK/expected" "$T_WORK/all" "$T_WORK/all" "shared FS, srun --mpi=pmix"
