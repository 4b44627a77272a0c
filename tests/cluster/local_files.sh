#!/usr/bin/env bash
# Cluster test (a): 3 nodes, each holding only its trainers' files in its own /local/data.
# xstack over cluster/mpirun (1 and 2 ranks per node) and over cluster/srun --mpi=pmix must write
# traces byte-identical to a single-process run over all files in one folder, and every file
# must be read once, on the node that holds it.
# usage: tests/cluster/local_files.sh [XSTACK]
. "$(dirname "$0")/lib.sh"
t_require_root
t_require_xstack
t_cluster_up --nodes 3 --slurm

t_synth_and_reference "$T_WORK/all" "$T_WORK/ref"
by_trainer() { echo $(( $(t_file_trainer "$1") + 1 )); }   # trainer T -> node T+1
t_distribute "$T_WORK/all" by_trainer "$T_WORK/placement"

t_report_mpirun "$T_WORK/mpi1" -np 3 --map-by ppr:1:node -- --data-dir /local/data --plan
t_same_traces "$T_WORK/ref" "$T_WORK/mpi1" "mpirun 1 rank/node"
t_check_plan "$T_WORK/mpi1.stderr" "$T_WORK/placement" "$T_WORK/all" /local/data "mpirun 1 rank/node"

t_report_mpirun "$T_WORK/mpi2" -np 6 --map-by ppr:2:node -- --data-dir /local/data --plan
t_same_traces "$T_WORK/ref" "$T_WORK/mpi2" "mpirun 2 ranks/node"
t_check_plan "$T_WORK/mpi2.stderr" "$T_WORK/placement" "$T_WORK/all" /local/data "mpirun 2 ranks/node"

t_report_srun "$T_WORK/srun1" -N 3 --ntasks-per-node=1 --mpi=pmix -- --data-dir /local/data --plan
t_same_traces "$T_WORK/ref" "$T_WORK/srun1" "srun --mpi=pmix 1 task/node"
t_check_plan "$T_WORK/srun1.stderr" "$T_WORK/placement" "$T_WORK/all" /local/data "srun --mpi=pmix 1 task/node"

t_report_srun "$T_WORK/srun2" -N 3 --ntasks-per-node=2 --mpi=pmix -- --data-dir /local/data --plan
t_same_traces "$T_WORK/ref" "$T_WORK/srun2" "srun --mpi=pmix 2 tasks/node"
t_check_plan "$T_WORK/srun2.stderr" "$T_WORK/placement" "$T_WORK/all" /local/data "srun --mpi=pmix 2 tasks/node"
