#!/usr/bin/env bash
# Peak memory of the release binary before and after 16 concurrent "zip bombs": a gzip body of
# 64 MiB of zeros (~64 KB on the wire) and a deflate one, each sent 8 times at once with
# Content-Encoding set. The service refuses any Content-Encoding with 415 before reading the
# body, so its peak RSS (VmHWM) must not move by more than a few MB.
# Usage: bash benches/compressed_body.sh      (FABRIC_TCO_BIN=path skips the build)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/serve.sh
source scripts/serve.sh
RUST_LOG=warn,fabric_tco=info serve_start "$(serve_release_bin)"
hwm() { awk '/VmHWM/ {print $2}' "/proc/$SERVE_PID/status"; }
before=$(hwm)
python3 - "$SERVE_URL" <<'PY'
import gzip, sys, zlib, urllib.request, concurrent.futures
url = sys.argv[1] + "/v1/plans"
zeros = b"{" + b" " * (64 * 1024 * 1024) + b"}"
bodies = {"gzip": gzip.compress(zeros, 9), "deflate": zlib.compress(zeros, 9)}
def send(enc):
    req = urllib.request.Request(url, data=bodies[enc], method="POST",
        headers={"Content-Type": "application/json", "Content-Encoding": enc})
    try:
        urllib.request.urlopen(req, timeout=30)
        return 200
    except urllib.error.HTTPError as e:
        return e.code
with concurrent.futures.ThreadPoolExecutor(16) as ex:
    codes = list(ex.map(send, ["gzip", "deflate"] * 8))
print("bodies on the wire:", {k: len(v) for k, v in bodies.items()}, "bytes; statuses:", sorted(set(codes)))
assert set(codes) == {415}, codes
PY
after=$(hwm)
echo "VmHWM before: ${before} kB, after: ${after} kB, delta: $((after - before)) kB"
