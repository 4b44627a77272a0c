#!/usr/bin/env bash
# Cross-check of our subset schema (tests/perfetto/perfetto_subset.proto) against Perfetto's
# official schema: Chromium embeds Perfetto's own encoder; record a Chromium startup trace in
# proto format and decode it with perfetto_schema_xcheck (field numbers, wire types, iids,
# tracks; see docs/PERFETTO.md). Chromium missing is a failure, not a skip: the full test
# command installs the `chromium` package.
# usage: tests/perfetto/chromium_xcheck.sh PATH/TO/perfetto_schema_xcheck
# env:   CHROMIUM (default: chromium, else chromium-browser, on PATH)
set -euo pipefail
xcheck=${1:?usage: chromium_xcheck.sh PATH/TO/perfetto_schema_xcheck}
browser=${CHROMIUM:-}
if [ -z "$browser" ]; then
  for candidate in chromium chromium-browser; do
    if command -v "$candidate" >/dev/null 2>&1; then
      browser=$candidate
      break
    fi
  done
fi
if [ -z "$browser" ] || ! command -v "$browser" >/dev/null 2>&1; then
  echo "FAIL: chromium not found (apt-get install chromium); it writes the reference trace" >&2
  exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/home"
version=$("$browser" --version 2>/dev/null || echo "unknown version")
echo "reference trace writer: $version"
# --no-sandbox: CI runs as root. HOME in the temp dir: no profile left behind.
HOME="$work/home" timeout 90 "$browser" --headless=new --no-sandbox --disable-gpu \
  --trace-startup='*,disabled-by-default-devtools.timeline' --trace-startup-format=proto \
  --trace-startup-file="$work/chromium.pftrace" --trace-startup-duration=3 \
  --dump-dom 'data:text/html,<p>xstack</p>' >"$work/dom.txt" 2>"$work/chromium.log" || {
  echo "FAIL: chromium exited with $? (log below)" >&2
  tail -n 20 "$work/chromium.log" >&2
  exit 1
}
# Chromium writes the trace file after the page is done; give it a moment if it is late.
for _ in 1 2 3 4 5 6 7 8 9 10; do
  [ -s "$work/chromium.pftrace" ] && break
  sleep 1
done
if [ ! -s "$work/chromium.pftrace" ]; then
  echo "FAIL: chromium wrote no trace (log below)" >&2
  tail -n 20 "$work/chromium.log" >&2
  exit 1
fi
echo "trace: $(wc -c <"$work/chromium.pftrace") bytes"
# Strings every Chromium startup trace holds, reached only through our field numbers
# (interned name / category tables, thread and process descriptors).
"$xcheck" "$work/chromium.pftrace" \
  --expect-event-name 'ThreadControllerImpl::RunTask' \
  --expect-category toplevel \
  --expect-thread-name Chrome_ChildIOThread \
  --expect-process-name Browser
