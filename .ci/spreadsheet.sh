#!/usr/bin/env bash
# Starts the release binary on a free loopback port and runs the LibreOffice Calc check
# (tests/spreadsheet/check.sh): WEBSERVICE formulas and CSV links recalculated by a real
# spreadsheet application, every cell compared with curl.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
FABRIC_TCO_BIND="127.0.0.1:${port}" RUST_LOG=warn ./target/release/fabric-tco &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
  curl -fs "http://127.0.0.1:${port}/healthz" >/dev/null 2>&1 && break
  sleep 0.2
done
bash tests/spreadsheet/check.sh "http://127.0.0.1:${port}"
