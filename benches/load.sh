#!/usr/bin/env bash
# Load proof: see benches/load.py (wrk against the release binary; every figure as a ratio to
# /healthz measured in the same run). Usage: bash benches/load.sh   (same environment variables)
exec python3 "$(dirname "$0")/load.py" "$@"
