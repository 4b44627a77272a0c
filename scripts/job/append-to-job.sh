# shellcheck shell=bash disable=SC2086  # a block to append to a job script; XSTACK_REPORT_ARGS splits on purpose
# ---- xstack: after training, turn this job's profiler dumps into Chrome traces ----------------
# Append this block to the end of a training job script (Slurm batch script or a script run by
# mpirun's launching host). It starts one xstack rank per node of the job; each rank reads the
# dumps on its own node (XSTACK_DATA_DIR, the same node-local path on every node) and rank 0
# writes traceFile_<group>_<gpu>.json into XSTACK_OUT (a folder rank 0's node can write).
# Set these before the block, or keep the defaults:
: "${XSTACK:=xstack}"                                    # xstack binary
: "${XSTACK_RUN:=xstack-run}"                             # the wrapper, scripts/job/xstack-run
: "${XSTACK_DATA_DIR:=/local/profile_data}"              # node-local: profile/ dcgm/ net/ time/
: "${XSTACK_OUT:=$PWD/xstack-traces-${SLURM_JOB_ID:-$$}}"
: "${XSTACK_GPUS_PER_TRAINER:=}"                     # empty: xstack infers it from the files
: "${XSTACK_GROUP_SIZE:=8}"
: "${XSTACK_DISPLAY_SIZE:=2}"
xstack_rc=0
"$XSTACK_RUN" --xstack "$XSTACK" -- --data-dir "$XSTACK_DATA_DIR" --out "$XSTACK_OUT" \
    ${XSTACK_GPUS_PER_TRAINER:+--gpus-per-trainer "$XSTACK_GPUS_PER_TRAINER"} --group-size "$XSTACK_GROUP_SIZE" \
    --display-size "$XSTACK_DISPLAY_SIZE" ${XSTACK_REPORT_ARGS:-} || xstack_rc=$?
if [ "$xstack_rc" = 0 ]; then
    echo "xstack: traces in $XSTACK_OUT"
else
    echo "xstack: failed (exit $xstack_rc); the profiler dumps are still in $XSTACK_DATA_DIR on each node" >&2
fi
# ---- end of xstack ------------------------------------------------------------------------------
