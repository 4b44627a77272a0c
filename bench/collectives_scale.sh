#!/usr/bin/env bash
# The collectives analysis at scale (docs/PERFORMANCE.md "The collectives analysis at scale"):
# `xstack report` with the analysis against `--no-analysis` on synthetic 3D-parallel Kineto jobs
# of 64, 256 and 1,024 ranks, under `mpirun -np 2` and in one process.
#
#   bench/collectives_scale.sh [--keep]
#
# Environment (all optional):
#   SIZES         training ranks, space-separated (default "64 256 1024"; known shapes:
#                 16 = TP2xPP2xDP4, 64 = TP2xPP4xDP8, 256 = TP4xPP4xDP16, 1024 = TP8xPP8xDP16,
#                 4096 = TP8xPP8xDP64; gN = one group of N ranks, TPNxPP1xDP1: a data-parallel
#                 job's group of every rank, e.g. g1024, 508 k arrivals in one group)
#   STEPS         training steps of each job (default 2)
#   MICROBATCHES  microbatches per step (default 62: about 500 collectives a step on a middle
#                 pipeline stage: 4 TP all-reduces and 4 sends/recvs per microbatch, plus the DP
#                 reduce-scatter and all-gather; first and last stages have 2 sends/recvs fewer)
#   REPS          rounds per size and mode, at least (default 3); a round runs both sides
#                 once, alternating which goes first
#   MIN_SECONDS   more rounds for a fast size: as many as make both sides run about this long
#                 in all, from the warm-up's time (default 10; 0: REPS rounds everywhere). A
#                 64-rank round is under a second, and a few rounds of it moved its ratio by
#                 0.1-0.15 on a shared VM
#   MODES         "np2 np1" (default): mpirun -np 2 --oversubscribe, and one process (no mpirun)
#   WARMUP        1 (default): one unmeasured run of each side per size and mode first; 0: none
#   XSTACK_BUILD_DIR (default <repo>/build), BENCH_WORK (parent of the work folder, default
#   /var/tmp)
#
# Per run: wall time around the whole command (mpirun included), each process under
# /usr/bin/time (user + sys CPU of every MPI rank, peak RSS (%M) of MPI rank 0), and rank 0's
# `--timings` line (the read and analysis stages' wall seconds, and the total). Every figure is
# a median over the rounds; a ratio is the median of the per-round ratios (both sides ran
# seconds apart). Warm cache: one unmeasured run of each side first (WARMUP=0: none; the synth
# just wrote the files). "arrivals" = communication kernels in all the traces (one per rank and
# collective call), from synth's schedule (docs/SYNTH.md).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/options.sh
. "$repo/bench/options.sh"
bench_options collectives_scale "$@"
read -r -a sizes <<<"${SIZES:-64 256 1024}"
read -r -a modes <<<"${MODES:-np2 np1}"
steps=${STEPS:-2} mb=${MICROBATCHES:-62} reps=${REPS:-3} warmup=${WARMUP:-1}
minSeconds=${MIN_SECONDS:-10}
[[ $minSeconds =~ ^[0-9]+$ ]] || { echo "collectives_scale: MIN_SECONDS: a whole number of seconds" >&2; exit 2; }
for v in "$steps" "$mb" "$reps"; do
  [[ $v =~ ^[1-9][0-9]*$ ]] || { echo "collectives_scale: STEPS, MICROBATCHES, REPS: positive integers" >&2; exit 2; }
done

say() { echo "collectives_scale: $*" >&2; }
die() { echo "collectives_scale: error: $*" >&2; exit 1; }

build=${XSTACK_BUILD_DIR:-$repo/build}
case $build in /*) ;; *) build=$repo/$build ;; esac
X=$build/bin/xstack
[ -x "$X" ] || die "no $X: build first (XSTACK_BUILD_TARGET=xstack scripts/build)"
[ -x /usr/bin/time ] || die "no /usr/bin/time (scripts/build installs the time package)"
command -v mpirun >/dev/null || die "mpirun not found (scripts/build installs openmpi-bin)"
if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi

work=$(mktemp -d "${BENCH_WORK:-/var/tmp}/xstack-collscale.XXXXXX") || die "cannot make a work folder"
if ((keep)); then say "work folder (kept): $work"; else trap 'rm -rf "$work"' EXIT; fi

# Wraps one process: "<wall> <user> <sys> <maxrss KiB>" into <prefix>.<MPI rank>.
cat >"$work/wrap" <<'EOF'
#!/bin/sh
p=$1; shift
exec /usr/bin/time -f "%e %U %S %M" -o "$p.${OMPI_COMM_WORLD_RANK:-0}" "$@"
EOF
chmod +x "$work/wrap"

now() { date +%s.%N; }
median() { sort -g | awk '{v[NR]=$1} END{if(!NR){print "nan";exit} if(NR%2)print v[(NR+1)/2]; else printf "%.4f\n",(v[NR/2]+v[NR/2+1])/2}'; }
div() { awk -v a="$1" -v b="$2" -v f="${3:-%.2f}" 'BEGIN{if(b==0||a=="nan"||b=="nan")print "-"; else printf f"\n", a/b}'; }
rec() { echo "$3" >>"$work/res/$1.$2"; }  # rec <key> <metric> <value>
med() { median <"$work/res/$1.$2"; }

shape() {  # shape RANKS -> "TP PP DP"
  case $1 in
    16) echo "2 2 4" ;;
    64) echo "2 4 8" ;;
    256) echo "4 4 16" ;;
    1024) echo "8 8 16" ;;
    4096) echo "8 8 64" ;;
    g[1-9]*) [[ ${1#g} =~ ^[0-9]+$ ]] || die "no shape for $1"; echo "${1#g} 1 1" ;;
    *) die "no shape for $1 ranks (known: 16 64 256 1024 4096, gN)" ;;
  esac
}

# Communication kernels of the whole job, from synth's schedule (docs/SYNTH.md): per rank and
# step 4 TP all-reduces per microbatch (tp > 1), a recv and a send per microbatch forward and
# backward on each side that has a neighbour stage, a DP reduce-scatter and all-gather (dp > 1).
arrivals() {  # arrivals TP PP DP M STEPS
  awk -v tp="$1" -v pp="$2" -v dp="$3" -v m="$4" -v st="$5" 'BEGIN{
    per = 0
    for (s = 0; s < pp; ++s)
      per += (tp > 1 ? 4 * m : 0) + (s > 0 ? 2 * m : 0) + (s < pp - 1 ? 2 * m : 0) + (dp > 1 ? 2 : 0)
    printf "%d %d\n", per * tp * dp * st, per / pp }'
}

# run MODE DATA OUT STATS [args]: sets wall, cpu (user + sys s of all MPI ranks), rss0 (KiB),
# and from rank 0's --timings (wall s) ana (the analysis stage), read (the read stage: the
# analyses' per-rank parts run in its walk) and total.
run() {
  local mode=$1 data=$2 out=$3 st=$4 t0 rc=0
  shift 4
  rm -rf "$out" "$st".[0-9]*
  t0=$(now)
  if [ "$mode" = np1 ]; then
    "$work/wrap" "$st" "$X" report --data-dir "$data" --out "$out" --no-progress --timings "$@" \
      >/dev/null 2>"$st.log" || rc=$?
  else
    mpirun --oversubscribe -np "${mode#np}" "$work/wrap" "$st" "$X" report --data-dir "$data" \
      --out "$out" --no-progress --timings "$@" >/dev/null 2>"$st.log" || rc=$?
  fi
  wall=$(awk -v a="$(now)" -v b="$t0" 'BEGIN{printf "%.3f", a-b}')
  if ((rc != 0 && rc != 3)); then
    tail -20 "$st.log" >&2
    die "xstack report ($mode) on $data exited $rc"
  fi
  rss0=$(awk 'NF == 4 {m = $4} END {print m + 0}' "$st.0")
  cpu=$(cat "$st".[0-9]* | awk 'NF == 4 {c += $2 + $3} END {printf "%.2f", c}')
  ana=$(sed -n 's/.*timings rank 0 .* analysis \([0-9.]*\)\/.*/\1/p' "$st.log" | tail -1)
  read=$(sed -n 's/.*timings rank 0 .* read \([0-9.]*\)\/.*/\1/p' "$st.log" | tail -1)
  total=$(sed -n 's/.*timings rank 0 .* total \([0-9.]*\)\/.*/\1/p' "$st.log" | tail -1)
  [ -n "$ana" ] || ana=0
  [ -n "$read" ] || read=nan
  [ -n "$total" ] || total=nan
  rm -rf "$out"
}

mkdir -p "$work/res"
echo "== the collectives analysis at scale"
echo "cpu: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores; memory: $(free -g | awk '/^Mem:/{print $2}') GiB"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "xstack: $X ($(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo '?'))"
echo "mpirun: $(mpirun --version 2>/dev/null | head -1)"
echo "jobs: xstack synth --format kineto --tp T --pp P --dp D --microbatches $mb --steps $steps --seed 1;" \
  "at least $reps rounds per size and mode, more for a fast size (MIN_SECONDS=$minSeconds)"

for n in "${sizes[@]}"; do
  read -r tp pp dp <<<"$(shape "$n")"
  read -r arr per <<<"$(arrivals "$tp" "$pp" "$dp" "$mb" "$steps")"
  d=$work/j$n
  say "$n ranks: synth TP$tp x PP$pp x DP$dp"
  "$X" synth --out "$d" --format kineto --tp "$tp" --pp "$pp" --dp "$dp" --microbatches "$mb" \
    --steps "$steps" --seed 1 >/dev/null 2>&1 || die "xstack synth failed ($n ranks)"
  echo "$n TP${tp}xPP${pp}xDP${dp} $arr $per $(du -sm "$d/profile" | cut -f1)" >"$work/res/$n.job"
  for mode in "${modes[@]}"; do
    rounds=$reps
    if [ "$warmup" != 0 ]; then
      say "$n ranks, $mode: warm-up"
      run "$mode" "$d" "$work/out" "$work/st" --no-analysis
      both=$wall
      run "$mode" "$d" "$work/out" "$work/st"
      rounds=$(awk -v r="$reps" -v m="$minSeconds" -v a="$both" -v b="$wall" \
        'BEGIN{n = (a + b > 0) ? int(m / (a + b) + 0.999) : r; print (n > r ? n : r)}')
    fi
    echo "$rounds" >"$work/res/$n.$mode.rounds"
    for ((r = 0; r < rounds; r++)); do
      order=(off on)
      ((r % 2)) && order=(on off)
      for side in "${order[@]}"; do
        if [ "$side" = off ]; then run "$mode" "$d" "$work/out" "$work/st" --no-analysis
        else run "$mode" "$d" "$work/out" "$work/st"; fi
        k=$n.$mode.$side
        rec "$k" wall "$wall"; rec "$k" cpu "$cpu"; rec "$k" rss0 "$rss0"; rec "$k" ana "$ana"; rec "$k" read "$read"
        rec "$k" total "$total"
        say "  round $((r + 1))/$rounds $side: $wall s, rank 0 $((rss0 / 1024)) MiB, analysis $ana s"
      done
      rec "$n.$mode" ratio "$(div "$(tail -1 "$work/res/$n.$mode.on.wall")" \
        "$(tail -1 "$work/res/$n.$mode.off.wall")" %.4f)"
      rec "$n.$mode" cratio "$(div "$(tail -1 "$work/res/$n.$mode.on.cpu")" \
        "$(tail -1 "$work/res/$n.$mode.off.cpu")" %.4f)"
    done
  done
  rm -rf "$d"
done

echo
echo "median of the rounds (column rounds); x = median of the per-round wall ratios (analysis / --no-analysis), cpu x the"
echo "same of user + sys CPU seconds summed over the MPI ranks (steadier on a shared machine);"
echo "analysis = rank 0's analysis stage (--timings), share = of rank 0's total; read = rank 0's read stage"
echo "(the analyses' per-rank parts run in its walk) without / with the analysis; RSS = rank 0's peak,"
echo "added = on - off (what the analysis adds to it)"
printf '%6s %-14s %10s %9s %5s %6s %8s %8s %6s %6s %8s %6s %8s %8s %9s %9s %9s %9s\n' ranks shape arrivals \
  "coll/step" mode rounds "off s" "on s" x "cpu x" "analysis" share "read off" "read on" "RSS off" "RSS on" \
  "added" "RSS on/1st"
for mode in "${modes[@]}"; do
  first=
  for n in "${sizes[@]}"; do
    read -r _ sh arr per _ <"$work/res/$n.job"
    on=$(med "$n.$mode.on" rss0)
    [ -n "$first" ] || first=$on
    off=$(med "$n.$mode.off" rss0)
    printf '%6s %-14s %10s %9s %5s %6s %8.3f %8.3f %6.2f %6.2f %8.3f %5s%% %8.3f %8.3f %7.1f M %7.1f M %7.1f M %9s\n' \
      "$n" "$sh" "$arr" "$per" "$mode" "$(cat "$work/res/$n.$mode.rounds")" "$(med "$n.$mode.off" wall)" "$(med "$n.$mode.on" wall)" "$(med "$n.$mode" ratio)" "$(med "$n.$mode" cratio)" \
      "$(med "$n.$mode.on" ana)" \
      "$(awk -v a="$(med "$n.$mode.on" ana)" -v t="$(med "$n.$mode.on" total)" 'BEGIN{printf "%.1f", (t > 0 ? 100 * a / t : 0)}')" \
      "$(med "$n.$mode.off" read)" "$(med "$n.$mode.on" read)" \
      "$(awk -v k="$(med "$n.$mode.off" rss0)" 'BEGIN{printf "%.1f", k / 1024}')" \
      "$(awk -v k="$on" 'BEGIN{printf "%.1f", k / 1024}')" \
      "$(awk -v a="$on" -v b="$off" 'BEGIN{printf "%.1f", (a - b) / 1024}')" "$(div "$on" "$first")"
  done
done
echo "goals (issue): wall with the analysis <= 1.2x --no-analysis; rank 0's peak RSS flat from the smallest to the largest job"
