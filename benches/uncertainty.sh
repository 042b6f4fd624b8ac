#!/usr/bin/env bash
# Uncertainty analysis over HTTP against the release binary: times GET /v1/plans for 1,024 H100
# GPUs on three fabrics with 10,000 Monte Carlo samples (docs/uncertainty.md), each run with a
# new seed so no answer comes from the plan memo:
#   1. catalog_prices  — the catalog's price ranges only (re-pricing every sample);
#   2. prices_and_job  — plus a GPU-hour value and a background load range (each sample also
#      re-resolves the request and re-runs the performance model);
#   3. 1000_samples    — the default sample count, catalog prices.
# One HTTP worker (FABRIC_TCO_WORKERS=1); the samples are drawn on the computing threads
# (FABRIC_TCO_HEAVY_THREADS, by default every core: set it to 1 for one core's figure). Reports
# min / median / max wall time over RUNS runs (default 7) and PASS/MISS against the target
# (< 1 s for 10,000 samples).
# Usage: bash benches/uncertainty.sh      (FABRIC_TCO_BIN=path skips the build)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS="${RUNS:-7}"
# shellcheck source=scripts/serve.sh
source scripts/serve.sh
FABRIC_TCO_WORKERS=1 RUST_LOG=warn,fabric_tco=info serve_start "$(serve_release_bin)"
base="${SERVE_URL}/v1/plans?gpus=1024&fabrics=infiniband,roce,roce_adaptive"
cases=(
  "catalog_prices|10000|${base}&uncertainty.samples=10000"
  "prices_and_job|10000|${base}&uncertainty.samples=10000&uncertainty.inputs.economics.gpu_hour_usd=1,2,4&uncertainty.inputs.workload.background_load=0,0.3"
  "1000_samples|1000|${base}&uncertainty.samples=1000"
)
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores; runs: $RUNS; 1 worker"
printf '%-16s %8s %9s %9s %9s %9s  %s\n' case samples min_s median_s max_s body_kB target
# A new seed per run, so no answer comes from the plan memo.
# shellcheck disable=SC2317 # called by serve_time
new_seed() { echo "&uncertainty.seed=${1}${RANDOM}"; }
status=0
for c in "${cases[@]}"; do
  IFS='|' read -r name samples url <<<"$c"
  out=$(mktemp)
  timing=$(serve_time "$RUNS" "$out" "$url" new_seed)
  read -r lo med hi bytes <<<"$timing"
  rm -f "$out"
  verdict=""
  if [[ "$samples" == 10000 ]]; then
    if awk -v m="$hi" 'BEGIN {exit !(m < 1.0)}'; then verdict="PASS (< 1 s)"; else verdict="MISS (>= 1 s)"; status=1; fi
  fi
  printf '%-16s %8s %9s %9s %9s %9s  %s\n' "$name" "$samples" "$lo" "$med" "$hi" "$((bytes / 1000))" "$verdict"
done
exit "$status"
