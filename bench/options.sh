# shellcheck shell=bash
# Sourced by bench scripts: the options every one of them takes.
#   bench_options NAME "$@"   sets keep=1 for --keep; prints the calling script's header
#                             comment (its lines 2 up to `set -euo`) for -h/--help and exits 0;
#                             refuses anything else (exit 2, naming NAME).
# shellcheck disable=SC2034  # keep: read by the sourcing script
bench_options() {
  local name=$1
  shift
  keep=0
  while (($#)); do
    case $1 in
      --keep) keep=1 ;;
      -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
      *) echo "$name: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
  done
}
