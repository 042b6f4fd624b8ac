#!/usr/bin/env python3
"""Heavy requests must not starve light ones: /healthz latency while four maximal sweeps run.

Starts the release binary (scripts/serve.sh's conventions: FABRIC_TCO_BIN or a release build,
an OS-chosen loopback port), measures /healthz alone for a baseline, then keeps SWEEPS (4)
maximal sweeps running concurrently — each 10,000 plans over the cluster size
(`/v1/sweeps?vary=gpus&from=8&to=100000&steps=10000`), restarted as soon as one ends — while
one client asks /healthz every 20 ms on a keep-alive connection. Reports p50 / p99 / max of
/healthz with and without the sweeps, how many sweeps ended and how (200, 503 busy, 503 too
slow), and PASS/MISS against the target: p99 < 10 ms while the sweeps run.

Environment: FABRIC_TCO_BIN (skip the build), DURATION [15] s, SWEEPS [4], PROBE [healthz]:
`plan` asks a plan never asked before instead (`/v1/plans?gpus=N&fabrics=…`, N = 512, 513, …:
the plan memo never answers it), with the same target.
Exit: 0 PASS, 1 MISS, 2 set-up failed.
"""
import http.client, json, os, re, subprocess, sys, tempfile, threading, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DURATION = float(os.environ.get("DURATION", "15"))
SWEEPS = int(os.environ.get("SWEEPS", "4"))
SWEEP = "/v1/sweeps?vary=gpus&from=8&to=100000&steps=10000&fabrics=infiniband,roce,roce_adaptive"
TARGET_P99_MS = 10.0
PROBE = os.environ.get("PROBE", "healthz")
if PROBE not in ("healthz", "plan"):
    sys.exit("PROBE must be healthz or plan")
PROBE_NAME = "/healthz" if PROBE == "healthz" else "a never-seen plan"


def binary():
    b = os.environ.get("FABRIC_TCO_BIN")
    if b:
        return b
    subprocess.run(["cargo", "build", "--release", "--locked", "--quiet"], cwd=ROOT, check=True)
    return os.path.join(ROOT, "target", "release", "fabric-tco")


def start_logged(bin_path, rust_log="warn,fabric_tco=info"):
    """Starts the service on a loopback port the OS chooses, with a data directory of its own;
    (process, host, port, log file)."""
    log = tempfile.NamedTemporaryFile(prefix="bench-", suffix=".log", delete=False)
    env = dict(os.environ, FABRIC_TCO_BIND="127.0.0.1:0", RUST_LOG=rust_log)
    env.setdefault("FABRIC_TCO_DATA_DIR", tempfile.mkdtemp(prefix="bench-data-"))
    proc = subprocess.Popen([bin_path], stdout=log, stderr=subprocess.STDOUT, env=env)
    for _ in range(200):
        time.sleep(0.05)
        m = re.search(r"listening on http://([0-9.]+):([0-9]+)/", open(log.name).read())
        if m:
            return proc, m.group(1), int(m.group(2)), log.name
    proc.terminate()
    sys.exit(f"the service did not log its address ({log.name})")


def start(bin_path):
    return start_logged(bin_path)[:3]


def percentile(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, -(-len(xs) * p // 100) - 1))] if xs else float("nan")


ASKED = [0]


def probe_path():
    if PROBE == "healthz":
        return "/healthz"
    ASKED[0] += 1
    return f"/v1/plans?gpus={511 + ASKED[0]}&fabrics=infiniband,roce,roce_adaptive"


def probe(host, port, seconds, stop=None):
    c = http.client.HTTPConnection(host, port, timeout=10)
    out, end = [], time.monotonic() + seconds
    while time.monotonic() < end and not (stop and stop.is_set()):
        path = probe_path()
        t = time.perf_counter()
        c.request("GET", path)
        r = c.getresponse()
        r.read()
        if r.status != 200:
            sys.exit(f"{path} answered {r.status}")
        out.append((time.perf_counter() - t) * 1000)
        time.sleep(0.02)
    return out


def main():
    proc, host, port = start(binary())
    try:
        base = probe(host, port, 3)
        stop, ended = threading.Event(), []

        def sweeper():
            c = http.client.HTTPConnection(host, port, timeout=60)
            while not stop.is_set():
                c.request("GET", SWEEP)
                r = c.getresponse()
                body = r.read()
                code = json.loads(body).get("code", "") if r.status != 200 else ""
                ended.append(f"{r.status} {code}".strip())
                if r.status == 503:
                    time.sleep(0.2)

        threads = [threading.Thread(target=sweeper, daemon=True) for _ in range(SWEEPS)]
        for t in threads:
            t.start()
        time.sleep(1.0)  # every sweep started
        loaded = probe(host, port, DURATION)
        stop.set()
        counts = {k: ended.count(k) for k in sorted(set(ended))}
        print(f"cpu: {os.cpu_count()} cores; {SWEEPS} concurrent maximal sweeps ({SWEEP}), {DURATION:.0f} s")
        print(f"| {PROBE_NAME} | requests | p50 ms | p99 ms | max ms |")
        print("|---|---:|---:|---:|---:|")
        for name, xs in (("alone", base), ("during the sweeps", loaded)):
            print(f"| {name} | {len(xs)} | {percentile(xs, 50):.2f} | {percentile(xs, 99):.2f} | {max(xs):.2f} |")
        print(f"sweeps ended: {counts}")
        p99 = percentile(loaded, 99)
        ok = p99 < TARGET_P99_MS
        print(f"{'PASS' if ok else 'MISS'}: {PROBE_NAME} p99 {p99:.2f} ms during the sweeps (target < {TARGET_P99_MS:.0f} ms)")
        return 0 if ok else 1
    finally:
        proc.terminate()
        proc.wait(timeout=20)


if __name__ == "__main__":
    sys.exit(main())
