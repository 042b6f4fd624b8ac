#!/usr/bin/env python3
"""Same answers from two builds: sends one fixed set of requests to two running services and
reports how many answers differ in status, content type or body (byte for byte). For a change
meant to keep every answer (a refactor, a speed-up), run the build before it and the build
after it side by side.

Usage: python3 benches/same_answers.py BASE_URL NEW_URL
  e.g. FABRIC_TCO_BIND=127.0.0.1:18731 old/fabric-tco &
       FABRIC_TCO_BIND=127.0.0.1:18733 target/release/fabric-tco &
       python3 benches/same_answers.py http://127.0.0.1:18731 http://127.0.0.1:18733

The set (~2,100 requests): plans at 22 sizes from 1 to 131,072 GPUs × every design choice
(`auto`, each design by name, none) × oversubscription 1, 2, 3 × 1 or 2 planes × with and
without `nodes_per_rack`; and sweeps, JSON and CSV, over sizes (up to 2,000 points, crossovers
bisected), a decimal input, 2-D grids, named designs, NIC speed, years; catalogs, the OpenAPI
document, GET plans, BOMs and values (JSON and CSV), an uncertainty analysis, a preset job, and
problem answers. Exit 0 when all are identical, 1 otherwise (the first five differences are
printed).
"""
import json, sys, urllib.error, urllib.request

SIZES = [1, 2, 8, 16, 24, 32, 48, 64, 96, 100, 128, 256, 512, 1000, 1024, 2048, 4096, 8192,
         16384, 32768, 80000, 131072]
DESIGNS = [None, "auto", "single_switch", "dual_switch", "collapsed_rails", "rail_only", "su_clos",
           "tor_copper"]
SWEEPS = [
    "vary=gpus&from=8&to=20000&steps=300&scale=geometric",
    "vary=gpus&from=8&to=100000&steps=2000",
    "vary=gpus&from=16&to=4096&steps=100&format=csv",
    "vary=economics.gpu_hour_usd&from=0.5&to=10&steps=50&gpus=1024",
    "vary=gpus&from=8&to=4096&steps=40&vary2=economics.gpu_hour_usd&from2=0.5&to2=8&steps2=20",
    "vary=gpus&from=8&to=20000&steps=60&vary2=topology.oversubscription&values2=1,2,3",
    "vary=gpus&values=16,24,32,48,64&topology.design=dual_switch",
    "vary=gpus&from=64&to=2048&steps=64&topology.nodes_per_rack=4&topology.design=tor_copper",
    "vary=nic_speed_gbps&values=200,400,800&gpus=4096",
    "vary=gpus&from=100&to=5000&steps=30&fabrics=infiniband,roce_adaptive",
    "vary=economics.years&from=1&to=7&steps=7&gpus=2048",
]

OTHERS = [
    "/v1/catalogs", "/v1/catalogs/default", "/openapi.json", "/healthz",
    "/v1/plans?gpus=1024", "/v1/plans?gpus=1024&format=csv", "/v1/plans/bom?gpus=4096",
    "/v1/plans/bom?gpus=96&format=csv", "/v1/value?metric=tco.total_usd&fabric=infiniband&gpus=1024",
    "/v1/value?metric=capex.total_usd&fabric=cheapest&gpus=2048", "/v1/plans?gpus=0",
    "/v1/plans?gpus=1024&economics.yeras=3", "/v1/sweeps?vary=gpus&from=8&to=4&steps=3",
]


def cases():
    for gpus in SIZES:
        for design in DESIGNS:
            for over in (1, 2, 3):
                for planes in (1, 2):
                    for per_rack in (None, 4):
                        topo = {"oversubscription": over, "planes": planes}
                        if design:
                            topo["design"] = design
                        if per_rack:
                            topo["nodes_per_rack"] = per_rack
                        yield "/v1/plans", {"gpus": gpus, "topology": topo}
    for q in SWEEPS:
        yield "/v1/sweeps?" + q, None
    for path in OTHERS:
        yield path, None
    for body in ({"gpus": 1024, "uncertainty": {"samples": 200}}, {"gpus": "many"}, {"gpus": 1024, "x": 1},
                 {"gpus": 512, "fabrics": ["roce"], "workload": {"preset": "fsdp-llama2-70b"}}):
        yield "/v1/plans", body


def answer(base, path, body):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(base + path, data=data, method="POST" if data else "GET",
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=120) as r:
            return r.status, r.headers.get("Content-Type"), r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type"), e.read()


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    base, new = sys.argv[1].rstrip("/"), sys.argv[2].rstrip("/")
    same = differ = 0
    for path, body in cases():
        a, b = answer(base, path, body), answer(new, path, body)
        if a == b:
            same += 1
            continue
        differ += 1
        if differ <= 5:
            print(f"differs: {path} {json.dumps(body) if body else ''}: {a[0]} {a[2][:160]!r} | "
                  f"{b[0]} {b[2][:160]!r}")
    print(f"{same + differ} requests: {same} identical, {differ} different")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
