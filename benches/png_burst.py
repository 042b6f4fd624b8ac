#!/usr/bin/env python3
"""A burst of PNG charts must not exhaust memory nor stall light requests (#44).

Starts the release binary (as benches/starve.py does), records its idle RSS, then sends BURST
(256) concurrent `GET /v1/charts/cost?gpus=<3001..>&format=png&width=2400` (each a plan never
asked before and the largest image), while one client asks /healthz every 20 ms and RSS is
sampled from /proc every 20 ms. Then it waits SETTLE (60) s and reads RSS again.

Reports: the answers by status (200, or 503 busy past the render queue's wait), peak RSS,
/healthz p50/p99/max during the burst, RSS after SETTLE s against idle, and PASS/MISS against
the issue's targets: peak RSS < 512 MB, /healthz p99 < 50 ms, RSS after a minute within 2x idle.

Environment: FABRIC_TCO_BIN (skip the build), BURST [256], SETTLE [60] s.
Exit: 0 PASS, 1 MISS, 2 set-up failed.
"""
import http.client, os, sys, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from starve import binary, start, percentile  # noqa: E402

BURST = int(os.environ.get("BURST", "256"))
SETTLE = float(os.environ.get("SETTLE", "60"))


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def main():
    proc, host, port = start(binary())
    try:
        # Warm: one chart, one health check (fonts loaded, pools made).
        c = http.client.HTTPConnection(host, port, timeout=30)
        c.request("GET", "/v1/charts/cost?gpus=3000&format=png&width=720")
        c.getresponse().read()
        time.sleep(1)
        idle = rss_mb(proc.pid)
        stop = threading.Event()
        peak, health, statuses = [idle], [], {}
        lock = threading.Lock()

        def sampler():
            while not stop.is_set():
                peak.append(rss_mb(proc.pid))
                time.sleep(0.02)

        def prober():
            h = http.client.HTTPConnection(host, port, timeout=30)
            while not stop.is_set():
                t = time.perf_counter()
                h.request("GET", "/healthz")
                h.getresponse().read()
                health.append((time.perf_counter() - t) * 1000)
                time.sleep(0.02)

        def chart(i):
            h = http.client.HTTPConnection(host, port, timeout=60)
            try:
                h.request("GET", f"/v1/charts/cost?gpus={3001 + i}&format=png&width=2400")
                r = h.getresponse()
                r.read()
                status = r.status
            except OSError as e:
                status = type(e).__name__
            with lock:
                statuses[status] = statuses.get(status, 0) + 1

        watchers = [threading.Thread(target=sampler), threading.Thread(target=prober)]
        for w in watchers:
            w.start()
        started = time.monotonic()
        burst = [threading.Thread(target=chart, args=(i,)) for i in range(BURST)]
        for t in burst:
            t.start()
        for t in burst:
            t.join()
        took = time.monotonic() - started
        stop.set()
        for w in watchers:
            w.join()
        time.sleep(SETTLE)
        settled = rss_mb(proc.pid)
        p99 = percentile(health, 99)
        checks = [
            (max(peak) < 512, f"peak RSS {max(peak):.0f} MB (idle {idle:.0f} MB), target < 512 MB"),
            (p99 < 50, f"/healthz during the burst: p50 {percentile(health, 50):.1f} ms, "
                       f"p99 {p99:.1f} ms, max {max(health):.1f} ms ({len(health)} probes), target p99 < 50 ms"),
            (settled <= 2 * idle, f"RSS {SETTLE:.0f} s after: {settled:.0f} MB, target <= 2 x idle = {2 * idle:.0f} MB"),
        ]
        print(f"{BURST} PNG charts (width 2400) at once in {took:.1f} s: answers {statuses}")
        for ok, line in checks:
            print(f"{'PASS' if ok else 'MISS'}: {line}")
        return 0 if all(ok for ok, _ in checks) else 1
    finally:
        proc.terminate()
        proc.wait()


if __name__ == "__main__":
    sys.exit(main())
