#!/usr/bin/env bash
# Starts the release binary on a free loopback port and runs the LibreOffice Calc checks:
# tests/spreadsheet/check.sh (WEBSERVICE formulas and CSV links recalculated by a real
# spreadsheet application, every cell compared with curl) and tests/spreadsheet/xlsx_check.py
# (the plan workbook read by openpyxl, recalculated by LibreOffice, with and without a changed
# unit price, every total compared with the API to the cent).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
# shellcheck source=scripts/serve.sh
source scripts/serve.sh
RUST_LOG=warn,fabric_tco=info serve_start ./target/release/fabric-tco
bash tests/spreadsheet/check.sh "$SERVE_URL"
python3 -c "import openpyxl" 2>/dev/null || python3 -m pip install --quiet --disable-pip-version-check openpyxl
python3 tests/spreadsheet/xlsx_check.py "$SERVE_URL"
