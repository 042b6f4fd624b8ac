#!/usr/bin/env python3
"""The plan workbook (`format=xlsx`) against the API, recalculated by real LibreOffice.

    python3 tests/spreadsheet/xlsx_check.py [BASE_URL]     (default http://127.0.0.1:8080)

1. GET /v1/plans?gpus=2048&format=xlsx: a reader that validates the package (openpyxl) opens
   it, and LibreOffice (headless) imports it and recalculates every formula: each fabric's
   capex, opex, TCO, net present cost and total equal the API's plan to the cent.
2. One switch's unit price is changed in the workbook (the first InfiniBand switch line,
   10 % off); LibreOffice recalculates; every total equals `POST /v1/plans` with that price as
   `prices.overrides`, to the cent, and the Summary's cheapest fabric is the plan's.
Exit status: 0 all PASS, 1 some FAIL, 2 could not run. Needs soffice and openpyxl (installed by
.ci/run).
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.request
from decimal import Decimal

BASE = (sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8080").rstrip("/")
GPUS = 2048
ROWS = {  # Side by side label → the plan's figure
    "Capex total": ("capex", "total_usd"),
    "Opex per year": ("opex_per_year", "total_usd"),
    "Opex per year: power": ("opex_per_year", "power_usd"),
    "Opex per year: support": ("opex_per_year", "support_usd"),
    "Opex per year: staff": ("opex_per_year", "staff_usd"),
    "Opex per year: spares": ("opex_per_year", "spares_usd"),
    "Network TCO (undiscounted)": ("tco", "total_usd"),
    "Network TCO, net present cost": ("tco", "npv_usd"),
    "Total cost (TCO + GPU idle)": ("total_cost_usd",),
}
results = []


def check(name, ok, detail=""):
    results.append(ok)
    print(f"{'PASS' if ok else 'FAIL'} {name}{'' if ok else ': ' + detail}")


def http(method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(BASE + path, data=data, method=method)
    if body is not None:
        req.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(req, timeout=60) as r:
        return r.read()


def recalculated(src, work):
    """`src` opened and saved by LibreOffice with every formula recalculated on load."""
    profile = os.path.join(work, "profile")
    os.makedirs(os.path.join(profile, "user"), exist_ok=True)
    with open(os.path.join(profile, "user", "registrymodifications.xcu"), "w") as f:
        f.write(
            '<?xml version="1.0" encoding="UTF-8"?>\n'
            '<oor:items xmlns:oor="http://openoffice.org/2001/registry" '
            'xmlns:xs="http://www.w3.org/2001/XMLSchema" '
            'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n'
            '<item oor:path="/org.openoffice.Office.Calc/Formula/Load">'
            '<prop oor:name="OOXMLRecalcMode" oor:op="fuse"><value>0</value></prop></item>\n'
            '<item oor:path="/org.openoffice.Office.Calc/Formula/Load">'
            '<prop oor:name="ODFRecalcMode" oor:op="fuse"><value>0</value></prop></item>\n'
            "</oor:items>\n"
        )
    out = os.path.join(work, "out")
    os.makedirs(out, exist_ok=True)
    subprocess.run(
        ["soffice", f"-env:UserInstallation=file://{profile}", "--headless", "--norestore",
         "--convert-to", "xlsx:Calc MS Excel 2007 XML", "--outdir", out, src],
        check=True, timeout=int(os.environ.get("LO_TIMEOUT", "180")),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    return os.path.join(out, os.path.basename(src))


def side_by_side(path):
    """{fabric display name: {row label: Decimal}} from the recalculated workbook."""
    import openpyxl

    wb = openpyxl.load_workbook(path, data_only=True)
    ws = wb["Side by side"]
    rows = list(ws.iter_rows(values_only=True))
    names = rows[0][1:]
    out = {n: {} for n in names if n}
    for r in rows[1:]:
        for n, v in zip(names, r[1:]):
            if n and isinstance(v, (int, float)):
                out[n][r[0]] = Decimal(repr(v)).quantize(Decimal("0.01"))
    cheapest = None
    summary = wb["Summary"]
    for r in summary.iter_rows(values_only=True):
        if r and r[0] == "Cheapest fabric (lowest total cost)":
            cheapest = r[1]
    return out, cheapest


def compare(label, book, plan):
    names = {
        "infiniband": "InfiniBand",
        "roce": "RoCE (ECMP)",
        "roce_adaptive": "adaptive-routing Ethernet",
    }
    for f in plan["fabrics"]:
        if not f.get("feasible"):
            continue
        got = book.get(names[f["fabric"]], {})
        for row, path in ROWS.items():
            want = f
            for p in path:
                want = want[p]
            want = Decimal(want)
            check(f"{label}: {f['fabric']} {row} = {want}", got.get(row) == want,
                  f"workbook {got.get(row)}")


def main():
    try:
        import openpyxl
    except ImportError:
        print("ERROR openpyxl is required (pip install openpyxl)")
        return 2
    if not shutil.which("soffice"):
        print("ERROR soffice (LibreOffice) is required")
        return 2
    work = tempfile.mkdtemp(prefix="fabric-tco-xlsx.")
    try:
        plan = json.loads(http("GET", f"/v1/plans?gpus={GPUS}"))
        raw = os.path.join(work, "plan.xlsx")
        with open(raw, "wb") as f:
            f.write(http("GET", f"/v1/plans?gpus={GPUS}&format=xlsx"))
        try:
            wb = openpyxl.load_workbook(raw)
            check("openpyxl reads the workbook", True)
        except Exception as e:  # noqa: BLE001 - any failure to read is the finding
            check("openpyxl reads the workbook", False, repr(e))
            return 1
        check("sheets", wb.sheetnames[:2] == ["Summary", "Assumptions"]
              and "Side by side" in wb.sheetnames and "BOM infiniband" in wb.sheetnames,
              str(wb.sheetnames))

        # 1. As served, recalculated: the API's figures.
        plain = os.path.join(work, "plain.xlsx")
        wb.save(plain)  # openpyxl drops cached results: LibreOffice must compute every one
        book, cheapest = side_by_side(recalculated(plain, os.path.join(work, "lo1")))
        compare("as served", book, plan)
        want = {"infiniband": "InfiniBand", "roce": "RoCE (ECMP)",
                "roce_adaptive": "adaptive-routing Ethernet"}[plan["comparison"]["cheapest_fabric"]]
        check(f"as served: cheapest fabric = {want}", cheapest == want, str(cheapest))

        # 2. One switch's unit price changed in the sheet.
        ws = wb["BOM infiniband"]
        line = next(r for r in ws.iter_rows(min_row=2) if r[2].value == "switch")
        sku, price_cell = line[0].value, line[5]
        new_price = (Decimal(str(price_cell.value)) * Decimal("0.9")).quantize(Decimal("0.01"))
        price_cell.value = float(new_price)
        changed = os.path.join(work, "changed.xlsx")
        wb.save(changed)
        book, cheapest = side_by_side(recalculated(changed, os.path.join(work, "lo2")))
        overridden = json.loads(http("POST", "/v1/plans", {
            "gpus": GPUS, "prices": {"overrides": {sku: str(new_price)}}}))
        ib = lambda p: next(f for f in p["fabrics"] if f["fabric"] == "infiniband")  # noqa: E731
        check("the override plan builds the same InfiniBand design",
              ib(overridden)["topology"] == ib(plan)["topology"],
              "the cheaper switch changed the design: pick a smaller change")
        compare(f"{sku} at ${new_price} in the sheet", book, overridden)
        want = {"infiniband": "InfiniBand", "roce": "RoCE (ECMP)",
                "roce_adaptive": "adaptive-routing Ethernet"}[overridden["comparison"]["cheapest_fabric"]]
        check(f"changed: cheapest fabric = {want}", cheapest == want, str(cheapest))
    finally:
        if os.environ.get("KEEP_WORK") == "1":
            print("work directory kept:", work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    failed = results.count(False)
    print(f"{len(results) - failed} PASS, {failed} FAIL")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
