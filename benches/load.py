#!/usr/bin/env python3
"""Load proof for fabric-tco: wrk (its Lua script prints one JSON line per run) against the
release binary, started by scripts/serve.sh on an OS-chosen loopback port.

Endpoints, one after another, same settings:
  healthz        GET  /healthz (baseline: no work)
  plan           POST /v1/plans, the same 1,024-GPU three-fabric request every time (plan memo)
  plan_distinct  the same with a different "gpus" (512..2559) in every request: every plan computed
  value          GET  /v1/value?metric=tco.total_usd&fabric=infiniband&gpus=1024
  value_distinct the same with a different gpus= in every request (a spreadsheet's cells)
  csv_distinct   GET  /v1/plans?format=csv&gpus=…, a different gpus= in every request

Per endpoint: req/s and its ratio to healthz, p50/p99, errors (non-2xx, socket errors, timeouts),
service CPU per request and cores used by the service / wrk / the rest, peak RSS (VmHWM). Checks the
targets (PASS/MISS), stops the service with SIGTERM (must exit 0), prints a markdown table.

Environment: FABRIC_TCO_BIN (skip the build), DURATION [10] s, CONNECTIONS [64], THREADS [2],
WARMUP [2] s, TIMEOUT [2s], PIN 0 | 1 | both (1: wrk on CPU PIN_WRK_CPU [0], service on
PIN_SVC_CPU [1]), PLAN_BODY, RESULTS_DIR (keep raw output), FAIL_ON_MISS=1.
Exit: 0 no request errored; 1 errors or an unclean stop; 2 set-up failed; 3 a target missed with
FAIL_ON_MISS=1.
"""
import json, os, shutil, signal, subprocess, sys, tempfile, time, urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
env = os.environ.get
DURATION, WARMUP = int(env("DURATION", "10")), int(env("WARMUP", "2"))
CONNECTIONS, THREADS, TIMEOUT = int(env("CONNECTIONS", "64")), int(env("THREADS", "2")), env("TIMEOUT", "2s")
PIN, WRK_CPU, SVC_CPU = env("PIN", "0"), env("PIN_WRK_CPU", "0"), env("PIN_SVC_CPU", "1")
PLAN_BODY = env("PLAN_BODY", '{"gpus":1024,"gpu_model":"h100","fabrics":["infiniband","roce","roce_adaptive"]}')
TARGETS = {"plan": 0.5, "plan_distinct": 0.3, "value": 0.3}  # req/s as a share of healthz
TARGET_P99_MS, TARGET_RSS_MB = 10.0, 100.0
CLK = os.sysconf("SC_CLK_TCK")
ENDPOINTS = [  # name, method, path, body, vary gpus
    ("healthz", "GET", "/healthz", None, False),
    ("plan", "POST", "/v1/plans", PLAN_BODY, False),
    ("plan_distinct", "POST", "/v1/plans", PLAN_BODY, True),
    ("value", "GET", "/v1/value?metric=tco.total_usd&fabric=infiniband&gpus=1024", None, False),
    ("value_distinct", "GET", "/v1/value?metric=tco.total_usd&fabric=infiniband&gpus=1024", None, True),
    ("csv_distinct", "GET", "/v1/plans?format=csv&gpus=1024", None, True),
]


def die(code, msg):
    print(f"[load] error: {msg}", file=sys.stderr)
    sys.exit(code)


def sh(script, *args):
    return subprocess.run(["bash", "-c", f"cd {ROOT} && source scripts/serve.sh && {script}", "_", *args],
                          check=True, capture_output=True, text=True).stdout.strip()


def proc_cpu(pid):  # utime + stime of a process, seconds
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / CLK


def machine_cpu():  # busy seconds of the whole machine
    f = [int(x) for x in open("/proc/stat").readline().split()[1:]]
    return (sum(f) - f[3] - f[4]) / CLK


def children_cpu():
    t = os.times()
    return t.children_user + t.children_system


def hwm_mb(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmHWM"):
            return int(line.split()[1]) / 1024
    return 0.0


def start(binary, mode):
    """The service via scripts/serve.sh (bash stays as its parent and exits with its status)."""
    prefix = f"taskset -c {SVC_CPU} " if mode == "pinned" else ""
    wrapper = os.path.join(WORK, f"serve-{mode}.sh")
    with open(wrapper, "w") as f:
        f.write(f'#!/usr/bin/env bash\nexec {prefix}"{binary}"\n')
    os.chmod(wrapper, 0o755)
    proc = subprocess.Popen(["bash", "-c", 'cd "$1" && source scripts/serve.sh && serve_start "$2" && '
                             'echo "READY $SERVE_URL $SERVE_PID" && wait "$SERVE_PID"', "_", ROOT, wrapper],
                            stdout=subprocess.PIPE, text=True, env=dict(os.environ, RUST_LOG=env("RUST_LOG", "warn,fabric_tco=info")))
    line = proc.stdout.readline().split()
    if len(line) != 3 or line[0] != "READY":
        die(2, f"the service did not start ({line})")
    return proc, line[1], int(line[2])


def wrk(base, name, method, path, body, vary, seconds, mode, out):
    bodyfile = None
    if body:
        bodyfile = os.path.join(WORK, "body.json")
        open(bodyfile, "w").write(body)
    cmd = (["taskset", "-c", WRK_CPU] if mode == "pinned" else []) + [
        "wrk", "-t", str(THREADS), "-c", str(CONNECTIONS), "-d", f"{seconds}s", "--timeout", TIMEOUT,
        "-s", os.path.join(ROOT, "benches/load/wrk.lua"), base + path]
    e = dict(os.environ, LOAD_METHOD=method, LOAD_BODY_FILE=bodyfile or "", LOAD_VARY_GPUS="1" if vary else "")
    r = subprocess.run(cmd, env=e, capture_output=True, text=True)
    open(out, "w").write(r.stdout + r.stderr)
    if r.returncode != 0:
        die(1, f"wrk failed on {name}: {r.stderr[-300:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def measure(binary, mode):
    proc, base, pid = start(binary, mode)
    results = {}
    for name, method, path, body, vary in ENDPOINTS:
        req = urllib.request.Request(base + path, data=body.encode() if body else None, method=method,
                                     headers={"Content-Type": "application/json"})
        if urllib.request.urlopen(req, timeout=10).status // 100 != 2:
            die(1, f"pre-check failed: {method} {path}")
        if WARMUP:
            wrk(base, name, method, path, body, vary, WARMUP, mode, os.path.join(WORK, f"warmup-{mode}-{name}.txt"))
        s0, m0, k0, t0 = proc_cpu(pid), machine_cpu(), children_cpu(), time.monotonic()
        r = wrk(base, name, method, path, body, vary, DURATION, mode, os.path.join(WORK, f"wrk-{mode}-{name}.txt"))
        s1, m1, k1, t1 = proc_cpu(pid), machine_cpu(), children_cpu(), time.monotonic()
        wall = t1 - t0
        r["rps"] = r["requests"] / (r["duration_us"] / 1e6)
        r["errors"] = sum(r[k] for k in ("non2xx", "connect", "read", "write", "timeout"))
        r["svc_us_per_req"] = (s1 - s0) * 1e6 / max(r["requests"], 1)
        r["cores"] = ((s1 - s0) / wall, (k1 - k0) / wall, max(0.0, (m1 - m0 - (s1 - s0) - (k1 - k0)) / wall))
        r["hwm_mb"] = hwm_mb(pid)
        results[name] = r
        print(f"[load] {mode} {name}: {r['rps']:.0f} req/s, p99 {r['p99_us'] / 1000:.2f} ms, errors {r['errors']}", file=sys.stderr)
    t0 = time.monotonic()
    os.kill(pid, signal.SIGTERM)
    try:
        status = proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        status = "killed"
    stop = f"exit {status} after SIGTERM in {time.monotonic() - t0:.2f} s"
    return results, stop, status == 0


def main():
    global WORK
    WORK = env("RESULTS_DIR") or tempfile.mkdtemp(prefix="fabric-tco-load.")
    os.makedirs(WORK, exist_ok=True)
    for tool, pkg in (("wrk", "wrk"), ("curl", "curl"), ("taskset", "util-linux")):
        if not shutil.which(tool):
            subprocess.run(["apt-get", "install", "-y", "-qq", pkg], check=False, capture_output=True)
            if not shutil.which(tool):
                subprocess.run(["apt-get", "update", "-qq"], check=False, capture_output=True)
                subprocess.run(["apt-get", "install", "-y", "-qq", pkg], check=False, capture_output=True)
        if not shutil.which(tool):
            die(2, f"{tool} missing and apt-get could not install {pkg}")
    binary = os.path.abspath(sh("serve_release_bin"))
    modes = {"0": ["shared"], "1": ["pinned"], "both": ["shared", "pinned"]}.get(PIN) or die(2, "PIN must be 0, 1 or both")
    failed, missed = False, []
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    print(f"{os.cpu_count()} cores ({cpu}); {CONNECTIONS} connections, {THREADS} wrk threads, {DURATION} s per endpoint\n")
    print("| mode | endpoint | req/s | × healthz | p50 ms | p99 ms | errors | service CPU µs/req | cores: service / wrk / other | VmHWM MiB |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---|---:|")
    for mode in modes:
        res, stop, clean = measure(binary, mode)
        failed |= not clean
        h = res["healthz"]["rps"]
        for name, r in res.items():
            c = r["cores"]
            print(f"| {mode} | {name} | {r['rps']:.0f} | {r['rps'] / h:.2f} | {r['p50_us'] / 1000:.2f} | "
                  f"{r['p99_us'] / 1000:.2f} | {r['errors']} | {r['svc_us_per_req']:.1f} | "
                  f"{c[0]:.2f} / {c[1]:.2f} / {c[2]:.2f} | {r['hwm_mb']:.1f} |")
            failed |= r["errors"] > 0
            checks = [(f"p99 < {TARGET_P99_MS} ms", r["p99_us"] / 1000 < TARGET_P99_MS)]
            if name in TARGETS:
                checks.append((f"≥ {TARGETS[name]} × healthz", r["rps"] >= TARGETS[name] * h))
            missed += [f"{mode} {name}: {label}" for label, ok in checks if not ok]
        if max(r["hwm_mb"] for r in res.values()) >= TARGET_RSS_MB:
            missed.append(f"{mode}: peak RSS ≥ {TARGET_RSS_MB} MB")
        print(f"\n{mode}: service {stop}\n")
    for m in missed:
        print(f"MISS {m}")
    print("targets: all met" if not missed else f"targets: {len(missed)} missed")
    if not env("RESULTS_DIR") and not failed:
        shutil.rmtree(WORK, ignore_errors=True)
    sys.exit(1 if failed else 3 if missed and env("FAIL_ON_MISS") == "1" else 0)


if __name__ == "__main__":
    main()
