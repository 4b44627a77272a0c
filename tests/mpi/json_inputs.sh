#!/usr/bin/env bash
# Hostile variations of a Kineto job's rank file (docs/FORMAT.md section 8), with real
# mpirun at np 1 and np 3 (the same bytes): never a wrong result with rc 0.
#   json_inputs.sh XSTACK WORKDIR CASE
# CASE base:   rank 1's baseTimeNanoseconds 1e30, "abc", 12.5, two different ones, or after
#              the events of a file still being written (cut before it): rc 3 naming the
#              file, the time origin that of the other ranks (never 1970); an event at
#              Kineto's clamped relative ts 0: rc 0, json_clamped_time, the origin unmoved.
# CASE swap:   rank 1's file replaced by rank 2's, or rewritten, between listing and read
#              (hook read-cmd on every rank): rc 3 naming what changed; distributedInfo.rank
#              -1 or 1.5: rc 3, "is not a rank".
# CASE silent: rank 1's every event before 1970 or after 2262; its traceEvents null, an
#              object, a string, or missing: rc 3 naming the file, never a row of zeros.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"
X=$1
W=$2
CASE=$3
rm -rf "$W"
mkdir -p "$W"

"$X" synth --format kineto --out "$W/data" --trainers 1 --gpus-per-trainer 3 --steps 2 \
  --ops-per-step 3 >/dev/null 2>&1
rank_file() { find "$1/profile" -name "rank$2.*" | head -1; }

# edit DIR RANK PYTHON: rewrites rank RANK's trace in DIR with PYTHON, which changes `text`
# (the JSON text) or `doc` (the parsed document, when it sets doc and leaves text alone).
edit() {
  local f
  f=$(rank_file "$1" "$2")
  python3 - "$f" "$3" <<'PY'
import gzip, json, sys
path, code = sys.argv[1], sys.argv[2]
text = gzip.open(path, "rt").read()
doc = json.loads(text)
env = {"text": text, "doc": doc, "json": json}
exec(code, env)
out = env["text"] if env["text"] != text else json.dumps(env["doc"], indent=1)
with gzip.open(path, "wt") as f:
    f.write(out)
PY
}

# origin DIR: the time origin the traces of DIR were written with.
origin() {
  python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["otherData"]["time_origin_ns"])' \
    "$1/traceFile_0_0.json"
}

# run NAME [ENV...]: report on $W/NAME at np 1 and np 3 into NAME.out1 / NAME.out3 (logs
# NAME.log1 / NAME.log3), each on a fresh copy of the folder (a hook may change it); sets rc
# (np 1's; np 3's must agree) and checks the same bytes.
run() {
  local name=$1 np rc3=0
  shift
  rm -rf "${W:?}/$name.pristine"
  cp -r "$W/$name" "$W/$name.pristine"
  for np in 1 3; do
    rm -rf "${W:?}/$name"
    cp -r "$W/$name.pristine" "$W/$name"
    set +e
    env "$@" "$MPIRUN" --timeout "$MPI_TIMEOUT" -np "$np" --oversubscribe --bind-to none \
      --mca btl self,tcp,vader "$X" report --data-dir "$W/$name" --out "$W/$name.out$np" \
      --gpus-per-trainer 3 --no-progress 2>"$W/$name.log$np"
    rc3=$?
    set -e
    if [ "$np" = 1 ]; then rc=$rc3; fi
  done
  [ "$rc" = "$rc3" ] || fail "$name: rc $rc at np 1, $rc3 at np 3"
  if [ "$rc" = 0 ] || [ "$rc" = 3 ]; then same_dir "$W/$name.out1" "$W/$name.out3"; fi
}

# expect NAME RC TEXT...: rc and every TEXT in the np 1 and np 3 logs.
expect() {
  local name=$1 want=$2 log t
  shift 2
  [ "$rc" = "$want" ] || { cat "$W/$name.log1"; fail "$name: rc $rc, want $want"; }
  for log in "$W/$name.log1" "$W/$name.log3"; do
    for t in "$@"; do
      grep -qF -- "$t" "$log" || { cat "$log"; fail "$name: '$t' not in $(basename "$log")"; }
    done
  done
}

# variant NAME: a fresh copy of the data as $W/NAME.
variant() {
  rm -rf "${W:?}/$1"
  cp -r "$W/data" "$W/$1"
}

clean_origin() {
  run data
  [ "$rc" = 0 ] || { cat "$W/data.log1"; fail "clean run: rc $rc"; }
  origin "$W/data.out1"
}

case_base() {
  local want name value got r1
  want=$(clean_origin)
  r1=$(basename "$(rank_file "$W/data" 1)")
  # the origin without rank 1 (the other ranks'), which a run failing rank 1 must have
  variant norank1
  rm "$(rank_file "$W/norank1" 1)"
  run norank1
  local without
  without=$(origin "$W/norank1.out1")
  for value in 1e30 '"abc"' 12.5; do
    name=base_$(echo "$value" | tr -dc 'a-z0-9')
    variant "$name"
    edit "$W/$name" 1 "import re; text = re.sub(r'\"baseTimeNanoseconds\": [0-9]+', '\"baseTimeNanoseconds\": ' + '''$value''', text)"
    run "$name"
    expect "$name" 3 "$r1" "baseTimeNanoseconds $value is not an integer count of ns" "failed: profile of training rank 1: "
    got=$(origin "$W/$name.out1")
    [ "$got" = "$without" ] || fail "$name: time origin $got, want the other ranks' $without"
  done
  # two different bases: the file fails naming both
  variant base_two
  edit "$W/base_two" 1 "text = text.rstrip().rstrip('}') + ', \"baseTimeNanoseconds\": 1696186170000000001}'"
  run base_two
  expect base_two 3 "$r1" "failed: profile of training rank 1: " "two different baseTimeNanoseconds, 1696186170000000000 and 1696186170000000001"
  # the base after the events, the file still being written (cut inside its events)
  variant base_cut
  edit "$W/base_cut" 1 "import re
m = re.search(r'\"baseTimeNanoseconds\": [0-9]+,\s*', text)
text = text[:m.start()] + text[m.end():]
text = text[:len(text) * 2 // 3]"
  run base_cut
  expect base_cut 3 "$r1" "failed: profile of training rank 1: " "its time base is unknown"
  got=$(origin "$W/base_cut.out1")
  [ "$got" = "$without" ] || fail "base_cut: time origin $got, want the other ranks' $without"
  # Kineto's clamp: an event at relative ts 0 never moves the origin
  variant clamp
  edit "$W/clamp" 1 "doc['traceEvents'].insert(0, {'ph': 'X', 'cat': 'cpu_op', 'name': 'clamped', 'pid': 1, 'tid': 1, 'ts': 0.0, 'dur': 3.0})"
  run clamp
  expect clamp 0 "json_clamped_time 1"
  got=$(origin "$W/clamp.out1")
  [ "$got" = "$want" ] || fail "clamp: time origin $got, want the clean run's $want"
  echo "base: ok (origin $want; $without without rank 1)"
}

case_swap() {
  local r1 r2 name
  r1=$(rank_file "$W/data" 1)
  r2=$(rank_file "$W/data" 2)
  # rank 1's file replaced by rank 2's after the listing (every rank runs the hook before
  # its reads; each replacement is atomic and the same bytes)
  variant swap
  run swap XSTACK_INJECT_FAULT=read-cmd:0,read-cmd:1,read-cmd:2 \
    XSTACK_INJECT_COMMAND="cp '$r2' '$W/swap.tmp.\$\$' && mv '$W/swap.tmp.\$\$' '$W/swap/profile/$(basename "$r1")'"
  expect swap 3 "$(basename "$r1")" "failed: profile of training rank 1: " "listed as rank 1, but read as rank 2 (distributedInfo.rank)"
  # rewritten with its own rank (another trace of rank 1: one ts digit changed)
  variant rewrite
  cp "$r1" "$W/rewrite.alt"
  python3 - "$W/rewrite.alt" <<'PY'
import gzip, re, sys
text = gzip.open(sys.argv[1], "rt").read()
text = re.sub(r'"ts": (\d)', lambda m: '"ts": ' + str((int(m.group(1)) + 1) % 10), text, count=1)
with gzip.open(sys.argv[1], "wt") as f:
    f.write(text)
PY
  run rewrite XSTACK_INJECT_FAULT=read-cmd:0,read-cmd:1,read-cmd:2 \
    XSTACK_INJECT_COMMAND="cp '$W/rewrite.alt' '$W/rewrite.tmp.\$\$' && mv '$W/rewrite.tmp.\$\$' '$W/rewrite/profile/$(basename "$r1")'"
  expect rewrite 3 "$(basename "$r1")" "failed: profile of training rank 1: " "not the file listed as rank 1"
  # a distributedInfo.rank that is no rank
  for value in -1 1.5; do
    name=rank_$(echo "$value" | tr -dc '0-9')
    variant "$name"
    edit "$W/$name" 1 "doc['distributedInfo']['rank'] = $value"
    run "$name"
    expect "$name" 3 "$(basename "$r1")" "distributedInfo.rank $value is not a rank"
  done
  echo "swap: ok"
}

case_silent() {
  local r1 name value
  r1=$(basename "$(rank_file "$W/data" 1)")
  for value in -2e15 1e16; do
    name=time_$(echo "$value" | tr -dc '0-9')
    variant "$name"
    edit "$W/$name" 1 "
for e in doc['traceEvents']:
    if 'ts' in e: e['ts'] = $value"
    run "$name"
    expect "$name" 3 "$r1" "failed: profile of training rank 1: " "no usable event"
  done
  for value in None '{}' '"x"' missing; do
    name=events_$(echo "$value" | tr -dc 'a-zA-Z')
    [ "$name" != events_ ] || name=events_object
    variant "$name"
    if [ "$value" = missing ]; then
      edit "$W/$name" 1 "del doc['traceEvents']"
    else
      edit "$W/$name" 1 "doc['traceEvents'] = $value"
    fi
    run "$name"
    expect "$name" 3 "$r1" "failed: profile of training rank 1: "
  done
  echo "silent: ok"
}

"case_$CASE"
