#!/usr/bin/env bash
# Starts the release binary on a free loopback port and runs the LibreOffice Calc check
# (tests/spreadsheet/check.sh): WEBSERVICE formulas and CSV links recalculated by a real
# spreadsheet application, every cell compared with curl.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
# shellcheck source=scripts/serve.sh
source scripts/serve.sh
RUST_LOG=warn,fabric_tco=info serve_start ./target/release/fabric-tco
bash tests/spreadsheet/check.sh "$SERVE_URL"
