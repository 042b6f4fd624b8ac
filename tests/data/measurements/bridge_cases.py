#!/usr/bin/env python3
"""Step-time validation cases from Megatron-Bridge's published throughput rows.

Reads bridge_rows.json (rows as printed, with their release) and prints the `cases` entries of
tests/data/perf_calibration.json for the dense Llama rows: the newest release's row of each configuration (model, system, GPUs,
FP8 or MXFP8) in FP8 or BF16 (NVFP4
has no peak in the model; 25.09 prints no precision). The network is not stated in the
tables: the rows run on DGX systems, modelled as their reference design (8 x 400G InfiniBand
a DGX H100/B200 server, 8 x 800G a DGX B300, 4 x 400G (GB200) or 4 x 800G (GB300) a 4-GPU
NVL72 tray). Usage: python3 bridge_cases.py > cases.json
"""
import json
import sys
from pathlib import Path

HERE = Path(__file__).parent

# Published shapes: total parameters (billions), layers, hidden, KV heads.
# Llama 3 paper Table 3 and the released configurations (Llama 3 8B 8.03 B, 70B 70.6 B,
# Llama 3.1 405B 405.9 B).
SHAPES = {
    "Llama 3 8B": (8.03, 32, 4096, 8),
    "Llama 3 70B": (70.6, 80, 8192, 8),
    "Llama 3.1 405B": (405.9, 126, 16384, 8),
}

# DGX system -> (model GPU, catalog GPU, GPUs a node, NICs a node, NIC Gb/s, NVLink domain).
SYSTEMS = {
    "H100": ("h100", None, 8, 8, 400, None),
    "B200": ("b200", None, 8, 8, 400, None),
    "B300": ("b200", "b300", 8, 8, 800, None),
    "GB200": ("b200", "gb200-nvl72", 4, 4, 400, 72),
    "GB300": ("b200", "gb300-nvl72", 4, 4, 800, 72),
}

# Rows that set a GPU's dense FP8 compute efficiency (src/perf/efficiency.rs): shown with
# status "calibration", not counted in the group's error.
CALIBRATION = {
    "S-llama370b-H100-64-FP8-26.04.01",
    "S-llama38b-B200-8-FP8-CS-25.11",
    "S-llama370b-GB200-64-FP8-26.04.01",
    "S-llama370b-GB300-64-FP8-26.04.01",
}

PRECISION = {"FP8": "fp8", "FP8-CS": "fp8", "FP8-MX": "fp8", "MXFP8": "fp8", "BF16": "bf16"}


def slug(s):
    return s.lower().replace(" ", "").replace(".", "")


def cases(rows):
    out = []
    seen = set()
    newest = set()
    for r in rows:
        if r["model"] not in SHAPES or r["precision"] not in PRECISION:
            continue
        # Rows run newest release first: keep each configuration's newest (earlier releases
        # repeat it on older software).
        mx = r["precision"] in ("MXFP8", "FP8-MX")
        config = (r["model"], r["gpu"], r["gpus"], mx)
        if config in newest:
            continue
        newest.add(config)
        params, layers, hidden, kv = SHAPES[r["model"]]
        gpu, catalog_gpu, gpn, nics, speed, domain = SYSTEMS[r["gpu"]]
        cid = f"S-{slug(r['model'])}-{r['gpu']}-{r['gpus']}-{r['precision']}-{r['release']}"
        if r.get("variant") == "alt":
            cid += "-alt"
        if cid in seen:
            cid += f"-gbs{r['gbs']}"
        seen.add(cid)
        fsdp = bool(r.get("fsdp"))
        case = {
            "id": cid,
            "group": "step_time",
            "status": "calibration" if cid in CALIBRATION else "reference",
            "gpu": gpu,
            "gpus": r["gpus"],
            "gpus_per_node": gpn,
            "nics_per_node": nics,
            "nic_speed_gbps": speed,
            "pcie_gen": 5,
            "fabric": "infiniband",
            "job": {
                "model_params_billion": params,
                "layers": layers,
                "hidden_size": hidden,
                "kv_heads": kv,
                "tensor_parallel": r["tp"],
                "pipeline_parallel": r["pp"],
                "context_parallel": r["cp"] or 1,
                "virtual_stages": r["vp"] or 1,
                "data_parallel_mode": "fsdp" if fsdp else "ddp",
                "micro_batch_sequences": r["mbs"],
                # Every Bridge Llama pre-training recipe with TP > 1 sets userbuffers TP
                # overlap (perf_recipes/llama/*/llama3*.py, tp_comm_overlap_cfg).
                "tp_comm_overlap": r["tp"] > 1,
                "global_batch_sequences": r["gbs"],
                "sequence_length": r["seq"],
                "precision": PRECISION[r["precision"]],
            },
            "metric": "tokens_per_s_per_gpu",
            "measured": r["tokens_per_s_per_gpu"],
            "tolerance": 0.15,
            "source": f"NVIDIA-NeMo/Megatron-Bridge {r['file']} (commit 067f987d), {r['release']} pre-training table: {r['raw_row'].strip()}",
            "note": "network not stated in the source: the DGX system's reference design is assumed",
        }
        if catalog_gpu:
            case["catalog_gpu"] = catalog_gpu
        if domain:
            case["nvlink_domain_gpus"] = domain
        out.append(case)
    return out


if __name__ == "__main__":
    rows = json.loads((HERE / "bridge_rows.json").read_text())["rows"]
    json.dump(cases(rows), sys.stdout, indent=1, ensure_ascii=False)
    print()
