#!/usr/bin/env python3
"""Same answers from two builds: sends one fixed set of requests to two running services and
reports how many answers differ in status, content type or body (byte for byte). For a change
meant to keep every answer (a refactor, a speed-up), run the build before it and the build
after it side by side.

Usage: python3 benches/same_answers.py BASE_URL NEW_URL
  e.g. FABRIC_TCO_BIND=127.0.0.1:18731 old/fabric-tco &
       FABRIC_TCO_BIND=127.0.0.1:18733 target/release/fabric-tco &
       python3 benches/same_answers.py http://127.0.0.1:18731 http://127.0.0.1:18733

The set (~2,900 requests): plans at 22 sizes from 1 to 131,072 GPUs × every design choice
(`auto`, each design by name, none) × oversubscription 1, 2, 3 × 1 or 2 planes × with and
without `nodes_per_rack`; and sweeps, JSON and CSV, over sizes (up to 2,000 points, crossovers
bisected), a decimal input, 2-D grids, named designs, NIC speed, years; catalogs, the OpenAPI
document, GET plans, BOMs and values (JSON and CSV), an uncertainty analysis, a preset job, and
problem answers; every GPU model × fabric × NIC speed at several sizes, each workload preset,
price overrides and discounts (checked and unused), the report page, charts (SVG) and bad
inputs. Exit 0 when all are identical, 1 otherwise (the first five differences are
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


GPU_MODELS = ["a100", "h100", "h200", "b200", "b300", "gb200-nvl72", "gb300-nvl72"]
PRESETS = ["dense-llama3-405b", "fsdp-llama2-70b", "moe-deepseek-v3"]
BAD = [
    {"gpus": -1}, {"gpus": 10**12}, {"gpus": 64, "gpu_model": "nope"}, {"gpus": 64, "nic_speed_gbps": 300},
    {"gpus": 64, "fabrics": []}, {"gpus": 64, "fabrics": ["token_ring"]},
    {"gpus": 64, "topology": {"oversubscription": 0.5}}, {"gpus": 64, "topology": {"planes": 3}},
    {"gpus": 64, "topology": {"switch_sku": "nope"}}, {"gpus": 4096, "topology": {"max_tiers": 1}},
    {"gpus": 64, "economics": {"years": 0}}, {"gpus": 64, "economics": {"discount_rate": "1.5"}},
    {"gpus": 64, "prices": {"overrides": {"nope": "1"}}}, {"gpus": 64, "workload": {"tensor_parallel": 3}},
    {"gpus": 64, "workload": {"preset": "moe-deepseek-v3", "expert_parallel": 7}},
    {"gpus": 64, "gpus_per_node": 16}, {"gpus": 64, "catalog": "other"},
    {"gpus": 64, "uncertainty": {"samples": 0}}, {"gpus": 64, "uncertainty": {"inputs": {"nope": {}}}},
    {"gpus": 64, "topology": {"cabling": {"node_leaf": {"cable": "nope"}}}},
]


def more_cases():
    for model in GPU_MODELS:
        for gpus in (1, 2, 8, 16, 72, 144, 288, 512, 1024, 2304, 4608, 16384, 65536, 100000):
            for speed in (None, 200, 400, 800):
                body = {"gpus": gpus, "gpu_model": model}
                if speed:
                    body["nic_speed_gbps"] = speed
                yield "/v1/plans", body
            for fabric in ("infiniband", "roce", "roce_adaptive"):
                yield "/v1/plans", {"gpus": 2304, "gpu_model": model, "fabrics": [fabric],
                                    "topology": {"in_network_reduction": True, "roce_tuning": "default"}}
    for preset in PRESETS:
        for gpus in (64, 512, 2048, 8192, 24576):
            for model in ("h100", "b200", "gb200-nvl72"):
                yield "/v1/plans", {"gpus": gpus, "gpu_model": model, "workload": {"preset": preset}}
    for gpus in (16, 96, 1024, 2048):
        yield "/v1/plans", {"gpus": gpus, "workload": {"tensor_parallel": 8, "pipeline_parallel": 4,
                                                       "model_params_billion": 70, "precision": "fp8"}}
        yield "/v1/plans", {"gpus": gpus, "prices": {
            "overrides": {"qm9700": "20000", "sn5600": "30000"},
            "discounts": {"vendor": {"NVIDIA": "0.2"}, "category": {"optic": "0.5"}}}}
        yield "/v1/plans", {"gpus": gpus, "economics": {"years": 3, "discount_rate": "0.08",
                                                        "electricity_usd_per_kwh": "0.2"},
                            "utilization": {"busy_fraction": "0.6"}}
        yield "/v1/plans", {"gpus": gpus, "reliability": {"checkpoint_interval_minutes": 60},
                            "uncertainty": {"samples": 100, "seed": 7}}
    for body in BAD:
        yield "/v1/plans", body
    for q in ("gpus=1024", "gpus=72&gpu_model=gb200-nvl72", "gpus=2048&workload.preset=moe-deepseek-v3",
              "gpus=0", "gpus=1024&uncertainty.samples=50"):
        yield "/report?" + q, None
    for chart in ("cost", "cumulative", "sweep", "tornado"):
        yield f"/v1/charts/{chart}?gpus=1024", None
        yield f"/v1/charts/{chart}?gpus=2048&format=svg&vary=gpus&from=64&to=4096&steps=20", None
    for metric in ("tco.total_usd", "capex.total_usd", "performance.gpu_idle_fraction", "total_cost_usd"):
        for fabric in ("infiniband", "roce", "roce_adaptive", "cheapest"):
            yield f"/v1/value?metric={metric}&fabric={fabric}&gpus=4096&gpu_model=b200", None
    yield "/v1/sweeps?vary=gpus&from=72&to=7200&steps=50&gpu_model=gb200-nvl72", None
    yield "/v1/sweeps?vary=workload.preset&values=dense-llama3-405b,fsdp-llama2-70b&gpus=1024", None
    yield "/v1/sweeps?vary=prices.overrides.qm9700&from=10000&to=40000&steps=30&gpus=4096&format=csv", None


def cases():
    yield from more_cases()
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
    statuses = {}
    for path, body in cases():
        a, b = answer(base, path, body), answer(new, path, body)
        statuses[a[0]] = statuses.get(a[0], 0) + 1
        if a == b:
            same += 1
            continue
        differ += 1
        if differ <= 5:
            print(f"differs: {path} {json.dumps(body) if body else ''}: {a[0]} {a[2][:160]!r} | "
                  f"{b[0]} {b[2][:160]!r}")
    print(f"{same + differ} requests: {same} identical, {differ} different")
    print("statuses of the first build's answers: " +
          ", ".join(f"{k}: {v}" for k, v in sorted(statuses.items())))
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
