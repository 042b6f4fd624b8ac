#!/usr/bin/env python3
"""Soak: DURATION (1,800) seconds of mixed traffic against the release binary, reporting RSS,
/healthz latency and every unexpected answer (issue #44; run by hand, not in CI).

Traffic, each kind on threads of its own, all at once:
- plans: GET /v1/plans with a new cluster size each time and a few repeated ones (the memo),
  JSON and CSV, and POST /v1/plans;
- sweeps: 2,000-point sweeps over the cluster size, JSON and CSV;
- analyses: 1,000-sample uncertainty analyses, the tornado chart;
- PNG: cost charts at 1,600 px wide, a new size each time;
- slow readers: a client asks a 10,000-point CSV sweep with a 4 KiB receive buffer, reads
  nothing for 15 s (the service's write stall is 10 s) and closes;
- /healthz every 50 ms on a keep-alive connection.
Every SAMPLE (5) seconds it reads the service's VmRSS from /proc. At the end it prints RSS at
start, peak, end and a minute after the load stops, /healthz p50 / p99 / max, and per traffic
kind the answers by status. A 5xx other than a 503 (busy, with Retry-After) or a transport
error is counted as an error. Exit 0 when there was none, RSS did not grow through the soak
(the median of its last third within 1.25x the median of its second: caches fill in the first
third, a leak goes on growing) and /healthz p99 < 50 ms; else 1.

Environment: FABRIC_TCO_BIN (skip the build), DURATION [1800], SAMPLE [5].
"""
import collections, http.client, json, os, socket, sys, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from png_burst import rss_mb  # noqa: E402
from starve import binary, percentile, start_logged  # noqa: E402

DURATION = float(os.environ.get("DURATION", "1800"))
SAMPLE = float(os.environ.get("SAMPLE", "5"))
FABRICS = "fabrics=infiniband,roce,roce_adaptive"


class Tally:
    def __init__(self):
        self.lock = threading.Lock()
        self.by_kind = collections.defaultdict(collections.Counter)
        self.errors = []

    def add(self, kind, status, detail=""):
        with self.lock:
            self.by_kind[kind][status] += 1
            bad = status == "transport" or (isinstance(status, int) and status >= 500 and status != 503)
            if bad and len(self.errors) < 50:
                self.errors.append(f"{kind}: {status} {detail}"[:300])


def ask(host, port, kind, tally, method, path, body=None, timeout=60):
    try:
        c = http.client.HTTPConnection(host, port, timeout=timeout)
        headers = {"Content-Type": "application/json"} if body is not None else {}
        c.request(method, path, body=body, headers=headers)
        r = c.getresponse()
        data = r.read()
        c.close()
        tally.add(kind, r.status, data[:200].decode("utf-8", "replace") if r.status >= 500 else "")
        return r.status
    except Exception as e:  # noqa: BLE001 — a transport failure is a finding, not a crash
        tally.add(kind, "transport", repr(e))
        return None


def loop(stop, pause, step):
    n = 0
    while not stop.is_set():
        step(n)
        n += 1
        stop.wait(pause)


def slow_reader(host, port, stop, tally):
    path = f"/v1/sweeps?gpus=1024&vary=gpus&from=256&to=11000&steps=10000&format=csv&{FABRICS}"
    while not stop.is_set():
        try:
            s = socket.socket()
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            s.connect((host, port))
            s.sendall(f"GET {path} HTTP/1.1\r\nHost: soak\r\n\r\n".encode())
            stop.wait(15)
            head = s.recv(64)
            status = int(head.split()[1]) if head.startswith(b"HTTP/1.1 ") else "cut"
            tally.add("slow reader", status)
            s.close()
        except (OSError, ValueError, IndexError):
            tally.add("slow reader", "cut")
        stop.wait(1)


def main():
    proc, host, port, log = start_logged(binary(), "warn,fabric_tco=info,fabric_tco::access=warn")
    tally, stop = Tally(), threading.Event()
    health, rss = [], []
    try:
        time.sleep(2)
        idle_rss = rss_mb(proc.pid)
        post_body = json.dumps({"gpus": 2048, "gpu_model": "b200"})

        def plan(n):
            size = 64 + (n % 20_000) * 8 if n % 4 else 1024
            fmt = "&format=csv" if n % 3 == 0 else ""
            ask(host, port, "plan", tally, "GET", f"/v1/plans?gpus={size}&{FABRICS}{fmt}")
            if n % 5 == 0:
                ask(host, port, "plan", tally, "POST", "/v1/plans", post_body)

        def sweep(n):
            fmt = "&format=csv" if n % 2 else ""
            ask(host, port, "sweep", tally, "GET",
                f"/v1/sweeps?vary=gpus&from={8 + n % 50}&to=50000&steps=2000&{FABRICS}{fmt}")

        def analysis(n):
            ask(host, port, "analysis", tally, "GET",
                f"/v1/plans?gpus={512 + n % 4096}&{FABRICS}&uncertainty.samples=1000&uncertainty.seed={n}")
            if n % 3 == 0:
                ask(host, port, "analysis", tally, "GET", f"/v1/charts/tornado?gpus={1024 + n % 1000}")

        def png(n):
            ask(host, port, "png", tally, "GET",
                f"/v1/charts/cost?gpus={3001 + n % 5000}&format=png&width=1600")

        def healthz():
            c = http.client.HTTPConnection(host, port, timeout=30)
            while not stop.is_set():
                t = time.perf_counter()
                try:
                    c.request("GET", "/healthz")
                    r = c.getresponse()
                    r.read()
                    health.append((time.perf_counter() - t) * 1000)
                    if r.status != 200:
                        tally.add("healthz", r.status)
                except Exception as e:  # noqa: BLE001
                    tally.add("healthz", "transport", repr(e))
                    c = http.client.HTTPConnection(host, port, timeout=30)
                stop.wait(0.05)

        workers = [
            threading.Thread(target=loop, args=(stop, 0.02, plan), daemon=True),
            threading.Thread(target=loop, args=(stop, 0.02, plan), daemon=True),
            threading.Thread(target=loop, args=(stop, 0.5, sweep), daemon=True),
            threading.Thread(target=loop, args=(stop, 0.5, analysis), daemon=True),
            threading.Thread(target=loop, args=(stop, 0.2, png), daemon=True),
            threading.Thread(target=slow_reader, args=(host, port, stop, tally), daemon=True),
            threading.Thread(target=healthz, daemon=True),
        ]
        for w in workers:
            w.start()
        end = time.monotonic() + DURATION
        while time.monotonic() < end and proc.poll() is None:
            time.sleep(SAMPLE)
            rss.append(rss_mb(proc.pid))
        stop.set()
        for w in workers:
            w.join(timeout=60)
        if proc.poll() is not None:
            print(f"the service exited with {proc.returncode} during the soak (log: {log})")
            return 1
        end_rss = rss_mb(proc.pid)
        time.sleep(60)
        after_rss = rss_mb(proc.pid)
        p99 = percentile(health, 99)
        print(f"soak: {DURATION:.0f} s, {os.cpu_count()} cores, service log {log}")
        print(
            f"RSS MB: idle {idle_rss:.0f}, peak {max(rss):.0f}, median {percentile(rss, 50):.0f}, "
            f"at the end {end_rss:.0f}, a minute after {after_rss:.0f}"
        )
        print(
            f"/healthz: {len(health)} requests, p50 {percentile(health, 50):.2f} ms, "
            f"p99 {p99:.2f} ms, max {max(health):.2f} ms"
        )
        for kind, counts in sorted(tally.by_kind.items()):
            print(f"{kind}: " + ", ".join(f"{k}: {v}" for k, v in sorted(counts.items(), key=str)))
        for e in tally.errors:
            print(f"error: {e}")
        third = max(1, len(rss) // 3)
        second, last = percentile(rss[third:2 * third], 50), percentile(rss[-third:], 50)
        ok = not tally.errors and last <= 1.25 * second and p99 < 50
        print(
            f"{'PASS' if ok else 'MISS'}: {len(tally.errors)} errors, RSS median {second:.0f} MB "
            f"in the second third and {last:.0f} MB in the last, /healthz p99 {p99:.2f} ms"
        )
        return 0 if ok else 1
    finally:
        stop.set()
        proc.terminate()
        proc.wait(timeout=30)


if __name__ == "__main__":
    sys.exit(main())
