# shellcheck shell=bash
# One helper for every script that needs a running service: source it, then
#
#   serve_start [BINARY]        # default: $FABRIC_TCO_BIN or target/release/fabric-tco
#   serve_release_bin           # prints $FABRIC_TCO_BIN, or builds and prints the release binary
#
# starts the binary on 127.0.0.1 with an OS-chosen port (FABRIC_TCO_BIND=127.0.0.1:0), reads
# the bound address from its "listening on http://…/" log line, waits for /healthz and sets
#
#   SERVE_URL  (http://127.0.0.1:PORT)   SERVE_PID   SERVE_LOG (the service's log file)
#   SERVE_DATA (its data directory: $FABRIC_TCO_DATA_DIR, else a new temporary one)
#
# Extra environment for the service can be passed as usual (FABRIC_TCO_WORKERS=1 serve_start).
# `serve_stop` (also run on EXIT) sends SIGTERM and waits. Needs only bash and curl.
#
#   serve_time RUNS OUT URL [SUFFIX_CMD]
#                               # GETs URL RUNS times (URL + the output of SUFFIX_CMD RUN when
#                               # given), keeps the last body in OUT, exits on a non-200 and
#                               # prints "min median max bytes" (seconds, curl's time_total)

# The release binary: $FABRIC_TCO_BIN, or built with `cargo build --release --locked`.
serve_release_bin() {
  if [[ -n "${FABRIC_TCO_BIN:-}" ]]; then
    echo "$FABRIC_TCO_BIN"
  else
    cargo build --release --locked --quiet >&2
    echo ./target/release/fabric-tco
  fi
}

serve_stop() {
  if [[ -n "${SERVE_PID:-}" ]]; then
    kill "$SERVE_PID" 2>/dev/null || true
    wait "$SERVE_PID" 2>/dev/null || true
    SERVE_PID=""
  fi
}

serve_start() {
  local bin="${1:-${FABRIC_TCO_BIN:-target/release/fabric-tco}}"
  SERVE_LOG="${SERVE_LOG:-$(mktemp)}"
  # Saved scenarios in a directory of this run's own, never the user's data directory.
  SERVE_DATA="${FABRIC_TCO_DATA_DIR:-$(mktemp -d)}"
  export SERVE_DATA
  FABRIC_TCO_BIND="127.0.0.1:0" RUST_LOG="${RUST_LOG:-info}" FABRIC_TCO_LOG_FORMAT=text \
    FABRIC_TCO_DATA_DIR="$SERVE_DATA" "$bin" >"$SERVE_LOG" 2>&1 &
  SERVE_PID=$!
  trap serve_stop EXIT
  SERVE_URL=""
  for _ in $(seq 1 300); do
    # `|| true`: callers run with `set -euo pipefail`, and grep finds nothing until the
    # service has logged its address (a failing substitution would end the caller silently).
    SERVE_URL=$(grep -o 'listening on http://[0-9.:]*' "$SERVE_LOG" 2>/dev/null | head -n1 | sed 's/^listening on //' || true)
    if [[ -n "$SERVE_URL" ]] && curl -fs --max-time 1 -o /dev/null "$SERVE_URL/healthz" 2>/dev/null; then
      export SERVE_URL SERVE_PID SERVE_LOG
      return 0
    fi
    if ! kill -0 "$SERVE_PID" 2>/dev/null; then
      echo "serve.sh: $bin exited; its log:" >&2
      cat "$SERVE_LOG" >&2
      return 1
    fi
    sleep 0.1
  done
  echo "serve.sh: $bin did not answer /healthz within 30 s; its log:" >&2
  cat "$SERVE_LOG" >&2
  return 1
}

serve_time() {
  local runs="$1" out="$2" url="$3" suffix="${4:-}" run t code secs bytes times=()
  for run in $(seq 1 "$runs"); do
    t=$(curl -s -o "$out" -w '%{http_code} %{time_total} %{size_download}' "${url}${suffix:+$($suffix "$run")}")
    read -r code secs bytes <<<"$t"
    if [[ "$code" != 200 ]]; then
      echo "HTTP $code from $url: $(head -c 400 "$out")" >&2
      exit 1
    fi
    times+=("$secs")
  done
  printf '%s\n' "${times[@]}" | sort -g | awk -v b="$bytes" '{a[NR]=$1} END {print a[1], a[int((NR+1)/2)], a[NR], b}'
}
