#!/usr/bin/env bash
# End-to-end sweep benchmark against the release binary: times GET /v1/sweeps over HTTP
# (parse, plan every point, bisect crossovers, serialize) for
#   1. the spreadsheet chart case: gpus 256 → 16,384, 64 geometric steps, three fabrics;
#   2. a 10,000-plan sweep: economics.gpu_hour_usd 0.5 → 10 in 10,000 steps, 1,024 GPUs,
#      three fabrics (no bisection on a decimal input, so exactly 10,000 plans);
#   3. a 100 × 100 grid: economics.gpu_hour_usd (crossovers along it) at 100 cluster sizes
#      from 256 to 16,384 GPUs, three fabrics (10,000 plans);
#   4. a 10,000-plan sweep over the cluster size: gpus 8 → 80,000 (linear), three fabrics,
#      every point sized (issue #14's target: under 200 ms).
# Reports min / median / max wall time over RUNS runs (default 7) and the plans computed.
# Usage: bash benches/sweep.sh      (FABRIC_TCO_BIN=path skips the build)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS="${RUNS:-7}"
# shellcheck source=scripts/serve.sh
source scripts/serve.sh
RUST_LOG=warn,fabric_tco=info serve_start "$(serve_release_bin)"
base="${SERVE_URL}/v1/sweeps?fabrics=infiniband,roce,roce_adaptive"
cases=(
  "chart_256_16384_x64|${base}&vary=gpus&from=256&to=16384&steps=64&scale=geometric"
  "sweep_10000_plans|${base}&gpus=1024&vary=economics.gpu_hour_usd&from=0.5&to=10&steps=10000"
  "grid_100x100|${base}&vary=economics.gpu_hour_usd&from=0.5&to=10&steps=100&vary2=gpus&from2=256&to2=16384&steps2=100&scale2=geometric"
  "gpus_10000_plans|${base}&vary=gpus&from=8&to=80000&steps=10000"
)
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores; runs: $RUNS"
printf '%-22s %8s %10s %10s %10s %10s\n' case plans min_s median_s max_s body_MB
for c in "${cases[@]}"; do
  name="${c%%|*}"
  url="${c#*|}"
  out=$(mktemp)
  timing=$(serve_time "$RUNS" "$out" "$url")
  read -r min median max bytes <<<"$timing"
  plans=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["plans_computed"])' "$out")
  rm -f "$out"
  printf '%-22s %8s %10s %10s %10s %10.1f\n' "$name" "$plans" "$min" "$median" "$max" \
    "$(python3 -c "print($bytes/1e6)")"
done
