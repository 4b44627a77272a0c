#!/usr/bin/env bash
# The stage list of `xstack report` exists once in words and is checked against the code: the
# stages named in ReportStages.h's opening comment, the stages the driver (Report.cpp, from
# runReport down through the driver's own helpers) calls, in the order it calls them, and the
# first column of the pipeline table in docs/DESIGN.md ("## The pipeline") are the same list.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
header=$(find "$root/include" -name ReportStages.h | head -1)
driver=$(find "$root/src" -name Report.cpp | head -1)
if [ -z "$header" ] || [ -z "$driver" ]; then echo "FAIL: ReportStages.h or Report.cpp not found"; exit 1; fi
python3 - "$header" "$driver" "$root/docs/DESIGN.md" <<'PY'
import re, sys
header, driver, design = (open(p).read() for p in sys.argv[1:4])

def header_stages(text):
    names = []
    for line in text.splitlines():
        if not line.startswith("//"):
            break
        m = re.match(r"//   (\w+)\s{2,}\S", line)
        if m:
            names.append(m.group(1))
    return names

def bodies(text):
    """name -> body text of every function defined at namespace level."""
    out = {}
    for m in re.finditer(r"^[\w:<>&*, ]+?\b(\w+)\(([^;{]*?)\)\s*(?:const\s*)?\{", text, re.M | re.S):
        depth, i = 1, m.end()
        while depth and i < len(text):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        out[m.group(1)] = text[m.end():i]
    return out

def driver_calls(text, stages):
    defs = bodies(text)
    order = []
    def walk(name, seen):
        for m in re.finditer(r"\b(\w+)\(", defs.get(name, "")):
            callee = m.group(1)
            if callee in stages:
                order.append(callee)
            elif callee in defs and callee not in seen:
                walk(callee, seen | {callee})
    walk("runReport", {"runReport"})
    return order

def design_stages(text):
    section = text.split("## The pipeline", 1)[1].split("\n## ", 1)[0]
    block = section.split("```", 2)[1]
    return [l.split()[0] for l in block.splitlines()[1:]
            if l.strip() and not l.startswith(" ") and l.split()[0] != "stage"]

stages = header_stages(header)
calls = driver_calls(driver, set(stages))
doc = design_stages(design)
ok = True
for what, names in (("Report.cpp calls", calls), ("docs/DESIGN.md lists", doc)):
    if names != stages:
        print("FAIL: ReportStages.h lists", stages)
        print("      but", what, names)
        ok = False
if not stages:
    print("FAIL: no stage found in ReportStages.h"); ok = False
if ok:
    print("ok: %d stages, the same in ReportStages.h, Report.cpp and docs/DESIGN.md" % len(stages))
sys.exit(0 if ok else 1)
PY
