#!/usr/bin/env bash
# --gpus-per-trainer from the inputs, under real mpirun:
#  - inferred from the time file names: traces byte-identical to the explicit run (np 1, 2, 3);
#  - without time files: from the DCGM GPU ids, identical to the explicit run;
#  - without time and DCGM files: 8 with a note saying it was assumed;
#  - given and contradicted by the time files (too large, too small): exit 2, the message names
#    the option, the value, the files and the value they imply; nothing is written;
#  - a dcgm file of a trainer with no profiles: a warning naming it, exit 0;
#  - the command `xstack synth` prints runs as printed and gives the same traces.
#   usage: topology.sh XSTACK WORKDIR
source "$(dirname "$0")/lib.sh"
xstack=$1 work=$2
rm -rf "$work" && mkdir -p "$work"
"$xstack" synth --out "$work/data" --trainers 3 --gpus-per-trainer 2 --steps 2 --ops-per-step 30 --seed 5 2>"$work/synth.err"

# The printed command, run as printed (with this build's binary): the reference.
cmd="$(sed -n 's/^xstack: synth: to make its traces: xstack //p' "$work/synth.err")"
[ "$cmd" = "report --data-dir $work/data --out $work/data-traces --gpus-per-trainer 2" ] \
  || fail "synth printed: $(cat "$work/synth.err")"
read -ra args <<<"$cmd"
"$xstack" "${args[@]}" --no-progress 2>/dev/null || fail "the command synth printed failed"
ref="$work/data-traces"

for np in 1 2 3; do
  xmpirun "$np" "$xstack" report --data-dir "$work/data" --out "$work/inferred$np" --no-progress 2>"$work/inferred$np.err" \
    || fail "inferred np=$np: $(cat "$work/inferred$np.err")"
  same_dir "$ref" "$work/inferred$np"
  grep -q "note: --gpus-per-trainer 2, from the time file names" "$work/inferred$np.err" \
    || fail "inferred np=$np: no note: $(cat "$work/inferred$np.err")"
done

# No time files: the DCGM rows' GPU ids.
mkdir -p "$work/notime" && cp -r "$work/data/profile" "$work/data/dcgm" "$work/data/net" "$work/notime/"
"$xstack" report --data-dir "$work/notime" --out "$work/notime-explicit" --gpus-per-trainer 2 --no-progress 2>/dev/null
xmpirun 2 "$xstack" report --data-dir "$work/notime" --out "$work/notime-inferred" --no-progress 2>"$work/notime.err" \
  || fail "inferred from DCGM: $(cat "$work/notime.err")"
same_dir "$work/notime-explicit" "$work/notime-inferred"
grep -q "note: --gpus-per-trainer 2, from the GPU ids of the DCGM rows" "$work/notime.err" \
  || fail "no DCGM note: $(cat "$work/notime.err")"

# Neither: 8 assumed, said so.
mkdir -p "$work/bare" && cp -r "$work/data/profile" "$work/bare/"
xmpirun 2 "$xstack" report --data-dir "$work/bare" --out "$work/bare-out" --no-progress 2>"$work/bare.err" \
  || fail "bare profiles: $(cat "$work/bare.err")"
grep -q "note: --gpus-per-trainer 8 assumed" "$work/bare.err" || fail "no 'assumed' note: $(cat "$work/bare.err")"

# Contradictions: exit 2 on every rank, a message naming option, value, files, implied value.
for given in 8 1; do
  set +e
  xmpirun 2 "$xstack" report --data-dir "$work/data" --out "$work/contra$given" --gpus-per-trainer "$given" \
    --no-progress 2>"$work/contra$given.err"
  rc=$?
  set -e
  [ "$rc" -eq 2 ] || fail "--gpus-per-trainer $given: exit $rc, want 2: $(cat "$work/contra$given.err")"
  grep -q "error: --gpus-per-trainer $given contradicts the time files" "$work/contra$given.err" \
    || fail "--gpus-per-trainer $given: message: $(cat "$work/contra$given.err")"
  grep -q "time\.txt\.[0-9]*\.[0-9]*.* in $work/data/time" "$work/contra$given.err" || fail "files not named"
  grep -q "imply --gpus-per-trainer 2" "$work/contra$given.err" || fail "implied value not named"
  [ "$(grep -c 'contradicts' "$work/contra$given.err")" -eq 1 ] || fail "message printed more than once"
  [ ! -e "$work/contra$given" ] || fail "--gpus-per-trainer $given: output folder created"
done

# A dcgm file of a trainer with no profiles: a warning naming it; exit 0.
cp -r "$work/data" "$work/stray" && cp "$work/data/dcgm/dcgm.0" "$work/stray/dcgm/dcgm.9"
xmpirun 2 "$xstack" report --data-dir "$work/stray" --out "$work/stray-out" --no-progress 2>"$work/stray.err" \
  || fail "stray dcgm: $(cat "$work/stray.err")"
grep -q "warning: dcgm file $work/stray/dcgm/dcgm.9 is of trainer 9, which has no profiles" "$work/stray.err" \
  || fail "stray dcgm not named: $(cat "$work/stray.err")"
echo "topology: ok"
