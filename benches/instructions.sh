#!/usr/bin/env bash
# Instructions per plan, counted by valgrind's callgrind: the same count on every run, so two
# builds compare on a noisy VM where wall-clock timings drift by 20 % (docs/performance.md).
# Runs a criterion bench of benches/perf.rs under callgrind and divides the
# instructions spent in `plan::pipeline::build_with` by its calls.
#
# Usage: [FUNCTION=…] bash benches/instructions.sh [FILTER] [BENCH_BINARY]
#   FILTER        criterion filter, default 'plan/1024_gpus_3_fabrics/figures$'
#   BENCH_BINARY  a built bench (target/release/deps/perf-*); default: built with cargo
#   FUNCTION      the function counted, default fabric_tco::plan::pipeline::build_with; for a plan's JSON:
#                 FUNCTION=fabric_tco::plan::output::Plan::to_json bash benches/instructions.sh \
#                   'plan/1024_gpus_3_fabrics/build\+json$'
# Needs valgrind (Debian package `valgrind`) and python3. Under valgrind the SHA-256 of the
# plan id runs its portable code (callgrind's CPU has no SHA extensions), about 85,000
# instructions a plan that the service does not spend; compare builds, not absolute figures.
set -euo pipefail
cd "$(dirname "$0")/.."
filter="${1:-plan/1024_gpus_3_fabrics/figures\$}"
bench="${2:-}"
if [[ -z "$bench" ]]; then
  bench=$(cargo bench --bench perf --no-run --message-format=json 2>/dev/null |
    python3 -c 'import json,sys
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "perf":
        print(m["executable"])' | tail -1)
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
valgrind --tool=callgrind --callgrind-out-file="$out" "$bench" --bench "$filter" --profile-time 1 \
  >/dev/null 2>&1
python3 - "$out" "$filter" "${FUNCTION:-fabric_tco::plan::pipeline::build_with}" <<'PY'
import collections, re, sys
names, calls, inclusive = {}, collections.Counter(), collections.Counter()
callee, pending = None, None
for line in open(sys.argv[1]):
    m = re.match(r"^(c?fn)=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
    if m:
        kind, ident, name = m.groups()
        if name:
            names[ident] = name
        if kind == "cfn":
            callee = ident
        continue
    m = re.match(r"^calls=(\d+)", line)
    if m:
        calls[callee] += int(m.group(1))
        pending = callee
        continue
    if pending:
        fields = line.split()
        if len(fields) >= 2:
            inclusive[pending] += int(fields[1])
        pending = None
function = sys.argv[3]
ids = [i for i, n in names.items() if n.endswith(function)]
n = sum(calls[i] for i in ids)
if n == 0:
    sys.exit(f"no call of {function} under {sys.argv[2]!r}")
print(f"{sys.argv[2]}: {n} calls of {function}, {sum(inclusive[i] for i in ids) / n:,.0f} instructions a call")
PY
