#!/usr/bin/env bash
# Drives the report page in real headless Chromium (Debian's package) through Playwright:
# loads /, submits the form with another GPU count, checks every table figure against the JSON
# plan for the same parameters, that every image loaded and that no request left 127.0.0.1,
# then saves a screenshot and a printed PDF under target/ci-artifacts/; then runs Swagger UI's
# "Try it out" on every operation (.ci/swagger.cjs). Fails on any mismatch.
set -euo pipefail
cd "$(dirname "$0")/.."
art=target/ci-artifacts
pw=target/ci-browser
mkdir -p "$art" "$pw"

if ! command -v chromium >/dev/null 2>&1; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
if ! command -v node >/dev/null 2>&1; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null
fi
# Playwright's library only (no browser download): it drives /usr/bin/chromium.
if [ ! -d "$pw/node_modules/playwright-core" ]; then
  (cd "$pw" && npm install --no-audit --no-fund --silent 'playwright-core@1.65')
fi

# shellcheck source=scripts/serve.sh
source scripts/serve.sh
SERVE_LOG="$art/browser-server.log" RUST_LOG=warn,fabric_tco=info serve_start "$(serve_release_bin)"

PW_DIR="$pw" node .ci/browser.cjs "$SERVE_URL" "$art"

# Swagger UI's "Try it out" on every operation (issue #43), with a write key of this run's own
# data directory for the saved-scenario operations.
key=$(FABRIC_TCO_DATA_DIR="$SERVE_DATA" "$(serve_release_bin)" keys create --name swagger-ci --scope write | head -n1)
PW_DIR="$pw" node .ci/swagger.cjs "$SERVE_URL" "$key" "$art"
