# shellcheck shell=bash disable=SC2034  # sourced: the arrays are used by check and regenerate
# The golden data set: 3 trainers x 2 GPUs, groups of 2 (the second group is
# partial), 1 trainer displayed per group, clock skew between trainers.
GOLDEN_SYNTH=(--trainers 3 --gpus-per-trainer 2 --steps 2 --ops-per-step 12 --seed 42)
GOLDEN_REPORT=(--gpus-per-trainer 2 --group-size 2 --display-size 1 --format "json,perfetto")
