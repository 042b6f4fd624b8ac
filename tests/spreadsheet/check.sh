#!/usr/bin/env bash
# Spreadsheet round trip with a real spreadsheet application: LibreOffice Calc (headless)
# evaluates the formulas and CSV links of docs/spreadsheets.md against a running fabric-tco,
# and every resulting cell is compared with what curl gets from the same URL.
#
#   tests/spreadsheet/check.sh [BASE_URL]        (default http://127.0.0.1:8080)
#
# Environment: LO_TIMEOUT (seconds for LibreOffice, default 180), LO_LOCALE (locale of the
# throw-away LibreOffice profile, default en-US), CHECK_TEMPLATE (another template, for
# negative tests), KEEP_WORK=1 (keep the temporary directory with the calculated document).
# Exit status: 0 all PASS, 1 some FAIL, 2 could not run.
set -euo pipefail

BASE="${1:-http://127.0.0.1:8080}"
BASE="${BASE%/}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
TEMPLATE="${CHECK_TEMPLATE:-$HERE/check.fods.in}"
MACRO="$HERE/recalc.bas"
LO_TIMEOUT="${LO_TIMEOUT:-180}"
LO_LOCALE="${LO_LOCALE:-en-US}"
START=$(date +%s.%N)

die() { echo "ERROR $*" >&2; exit 2; }

if ! command -v soffice >/dev/null 2>&1; then
    echo "installing libreoffice-calc with apt-get ..."
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq || die "apt-get update failed"
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        -o DPkg::Lock::Timeout=600 libreoffice-calc >/dev/null || die "apt-get install libreoffice-calc failed"
fi
for tool in curl python3 setsid; do
    command -v "$tool" >/dev/null 2>&1 || die "$tool is required"
done
[ -r "$TEMPLATE" ] || die "template $TEMPLATE not found"
curl -fsS --max-time 10 "$BASE/healthz" >/dev/null || die "service not reachable at $BASE/healthz"

LO_VERSION="$(soffice --version 2>/dev/null | head -n1)"
echo "LibreOffice: $LO_VERSION"
echo "service:     $BASE"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/fabric-tco-sheet.XXXXXX")"
LO_PID=""
# shellcheck disable=SC2317  # called by the EXIT trap
cleanup() {
    if [ -n "$LO_PID" ] && kill -0 "$LO_PID" 2>/dev/null; then
        kill -KILL -- "-$LO_PID" 2>/dev/null || kill -KILL "$LO_PID" 2>/dev/null || true
    fi
    if [ "${KEEP_WORK:-0}" = 1 ]; then echo "work directory kept: $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

# The document from the template, and a fresh LibreOffice profile that
#  - trusts $WORK/doc (links and WEBSERVICE are only updated on load for trusted locations),
#  - updates links on load without asking (Calc > Content > Update > Link = always),
#  - recalculates ODF documents on load (the template carries no cached results anyway),
#  - uses a fixed locale, and holds recalc.bas as Basic module Standard.Module1.
mkdir -p "$WORK/doc" "$WORK/profile/user" "$WORK/basic/Standard"
python3 - "$BASE" "$TEMPLATE" "$MACRO" "$WORK" "$LO_LOCALE" <<'PY'
import sys
from xml.sax.saxutils import escape
base, template, macro, work, locale = sys.argv[1:]
doc = open(template, encoding="utf-8").read().replace("@BASE@", escape(base, {'"': "&quot;"}))
open(f"{work}/doc/check.fods", "w", encoding="utf-8").write(doc)

def prop(path, name, value):
    return (f'<item oor:path="{path}"><prop oor:name="{name}" oor:op="fuse">'
            f'<value>{value}</value></prop></item>\n')
xcu = ('<?xml version="1.0" encoding="UTF-8"?>\n'
       '<oor:items xmlns:oor="http://openoffice.org/2001/registry" '
       'xmlns:xs="http://www.w3.org/2001/XMLSchema" '
       'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n'
       + prop("/org.openoffice.Office.Common/Security/Scripting", "SecureURL",
              f"<it>{escape('file://' + work + '/doc')}</it>")
       + prop("/org.openoffice.Office.Calc/Content/Update", "Link", 0)
       + prop("/org.openoffice.Office.Calc/Formula/Load", "ODFRecalcMode", 0)
       + prop("/org.openoffice.Setup/L10N", "ooSetupSystemLocale", escape(locale))
       + prop("/org.openoffice.Setup/L10N", "ooLocale", "en-US")
       + '</oor:items>\n')
open(f"{work}/profile/user/registrymodifications.xcu", "w", encoding="utf-8").write(xcu)

head = '<?xml version="1.0" encoding="UTF-8"?>\n'
libs = ('<library:libraries xmlns:library="http://openoffice.org/2000/library" '
        'xmlns:xlink="http://www.w3.org/1999/xlink">\n'
        ' <library:library library:name="Standard" library:link="false"/>\n'
        '</library:libraries>\n')
lib = ('<library:library xmlns:library="http://openoffice.org/2000/library" '
       'library:name="Standard" library:readonly="false" library:passwordprotected="false">\n'
       '{}</library:library>\n')
b = f"{work}/basic"  # copied into the profile after its first start
open(f"{b}/script.xlc", "w").write(head + libs)
open(f"{b}/dialog.xlc", "w").write(head + libs)
open(f"{b}/Standard/script.xlb", "w").write(
    head + lib.format(' <library:element library:name="Module1"/>\n'))
open(f"{b}/Standard/dialog.xlb", "w").write(head + lib.format(""))
open(f"{b}/Standard/Module1.xba", "w").write(
    head + '<script:module xmlns:script="http://openoffice.org/2000/script" '
    'script:name="Module1" script:language="StarBasic">'
    + escape(open(macro, encoding="utf-8").read(), {'"': "&quot;"}) + '</script:module>\n')
PY

# Run LibreOffice in its own session so that a hang can be killed as a whole.
run_lo() {
    setsid soffice "-env:UserInstallation=file://$WORK/profile" --headless --norestore --nologo \
        "$@" >>"$WORK/soffice.out" 2>&1 &
    LO_PID=$!
    local started
    started=$(date +%s)
    while kill -0 "$LO_PID" 2>/dev/null; do
        if [ $(( $(date +%s) - started )) -ge "$LO_TIMEOUT" ]; then
            kill -KILL -- "-$LO_PID" 2>/dev/null || kill -KILL "$LO_PID" 2>/dev/null || true
            echo "FAIL LibreOffice ($*) did not finish within ${LO_TIMEOUT}s"
            cat "$WORK/macro.log" 2>/dev/null || true
            exit 1
        fi
        sleep 0.2
    done
    wait "$LO_PID" || true
    LO_PID=""
}
LO_START=$(date +%s)
# First start creates the profile (and overwrites user/basic with the presets) ...
run_lo --terminate_after_init
cp -r "$WORK/basic/." "$WORK/profile/user/basic/"
# ... the second one runs recalc.bas: open check.fods, let the links update, save out.fods.
run_lo "macro:///Standard.Module1.Run(\"$WORK/doc/check.fods\",\"$WORK/out.fods\",\"$WORK/macro.log\")"
LO_SECONDS=$(( $(date +%s) - LO_START ))
if [ ! -s "$WORK/out.fods" ]; then
    echo "FAIL LibreOffice produced no document"
    cat "$WORK/macro.log" "$WORK/soffice.out" 2>/dev/null || true
    exit 1
fi

set +e
python3 - "$BASE" "$WORK/out.fods" <<'PY'
import csv, io, math, re, subprocess, sys
import xml.etree.ElementTree as ET

base, out = sys.argv[1:]
TB = "{urn:oasis:names:tc:opendocument:xmlns:table:1.0}"
OF = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}"
TX = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
NUMBER = re.compile(r"^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$")
failures = 0

def result(ok, msg):
    global failures
    if not ok:
        failures += 1
    print(("PASS " if ok else "FAIL ") + msg)

def curl(path):
    r = subprocess.run(["curl", "-sS", "--max-time", "30", "-w", "\n%{http_code}", base + path],
                       capture_output=True, text=True)
    body, _, code = r.stdout.rpartition("\n")
    if r.returncode != 0 or code != "200":
        raise RuntimeError(f"curl {base + path}: HTTP {code} {r.stderr.strip()} {body[:200]}")
    return body

def sheets(path):
    """Sheet name -> rows of (type, value); type is float, boolean, string or empty."""
    book = {}
    for tab in ET.parse(path).getroot().iter(TB + "table"):
        rows = []
        for row in tab.iter(TB + "table-row"):
            cells = []
            for c in row:
                if c.tag not in (TB + "table-cell", TB + "covered-table-cell"):
                    continue
                typ = c.get(OF + "value-type")
                if typ in ("float", "percentage", "currency"):
                    cell = ("float", c.get(OF + "value"))
                elif typ == "boolean":
                    cell = ("boolean", c.get(OF + "boolean-value"))
                else:
                    text = "\n".join("".join(p.itertext()) for p in c.iter(TX + "p"))
                    cell = ("string" if typ else "empty", text)
                cells += [cell] * min(int(c.get(TB + "number-columns-repeated", "1")), 1024)
            while cells and cells[-1][0] == "empty":
                cells.pop()
            rows += [cells] * min(int(row.get(TB + "number-rows-repeated", "1")), 1024)
        while rows and not rows[-1]:
            rows.pop()
        book[tab.get(TB + "name")] = rows
    return book

def same_number(lo, expected):
    # Calc keeps IEEE doubles and writes them to ODF with 15 significant digits.
    a, b = float(lo), float(expected)
    return a == b or math.isclose(a, b, rel_tol=1e-14, abs_tol=0.0)

def cell(book, sheet, ref):
    col, row = ord(ref[0]) - ord("A"), int(ref[1:]) - 1
    rows = book.get(sheet, [])
    if row < len(rows) and col < len(rows[row]):
        return rows[row][col]
    return ("empty", "")

def show(c):
    return c[1] if c[0] != "empty" else "(empty)"

def fmt_input(c):
    v = c[1]
    if c[0] == "float" and float(v).is_integer():
        return str(int(float(v)))
    return v

book = sheets(out)
gpus, fabric, years = (fmt_input(cell(book, "Inputs", r)) for r in ("B1", "B2", "B3"))
print(f"inputs:      B1 gpus={gpus}  B2 fabric={fabric}  B3 economics.years={years}")

hint = {"Err:540": " (external content blocked: link update not allowed)",
        "Err:502": " (VALUE() could not parse the text in this locale)",
        "#NAME?": " (unknown function)"}

# 1. Single values: WEBSERVICE + VALUE / NUMBERVALUE, with cell references.
value_checks = [
    ("B5", "total_cost_usd", "VALUE",
     f"/v1/value?metric=total_cost_usd&fabric={fabric}&gpus={gpus}&economics.years={years}"),
    ("B6", "performance.gpu_idle_fraction", "VALUE",
     f"/v1/value?metric=performance.gpu_idle_fraction&fabric={fabric}&gpus={gpus}"),
    ("B7", "topology.spine_switches", "VALUE",
     f"/v1/value?metric=topology.spine_switches&fabric={fabric}&gpus={gpus}"),
    ("B8", "tco.total_usd", "NUMBERVALUE",
     f"/v1/value?metric=tco.total_usd&fabric={fabric}&gpus={gpus}&economics.years={years}"),
    ("B11", "uncertainty.probability_cheapest", "VALUE",
     f"/v1/value?metric=uncertainty.probability_cheapest&fabric={fabric}&gpus={gpus}"),
]
for ref, metric, fn, path in value_checks:
    expected = curl(path)
    got = cell(book, "Inputs", ref)
    ok = got[0] == "float" and NUMBER.match(expected) is not None and same_number(got[1], expected)
    result(ok, f"Inputs.{ref} {fn}(WEBSERVICE) {metric} = {show(got)}{hint.get(got[1], '')}"
               f"  curl {path} -> {expected}")

# 1b. Text answers: the recommended fabric's name, and an error as text (errors=text).
for ref, what, path in (
    ("B12", "comparison.cheapest_fabric", f"/v1/value?metric=comparison.cheapest_fabric&gpus={gpus}"),
    ("B13", "errors=text", f"/v1/value?metric=total_cost_usd&fabric=nope&gpus={gpus}&errors=text"),
):
    expected = curl(path)
    got = cell(book, "Inputs", ref)
    ok = got[0] == "string" and got[1] == expected and expected != ""
    if ref == "B13":
        ok = ok and expected.startswith("Error 422:")
    result(ok, f"Inputs.{ref} WEBSERVICE {what} = {show(got)}{hint.get(got[1], '')}  curl {path} -> {expected}")

# 2. The CSV table, linked into sheets: header row + one row per fabric, numbers as numbers.
csv_path = "/v1/plans?gpus=1024&fabrics=infiniband,roce&format=csv"
expected_rows = list(csv.reader(io.StringIO(curl(csv_path))))
# A sheet stores no empty cells at the end of a row (the uncertainty columns are empty without
# an analysis): compare rows without them, as `sheets()` reads the sheet's rows.
for r in expected_rows:
    while r and r[-1] == "":
        r.pop()
numeric_fields = sum(1 for r in expected_rows[1:] for f in r if NUMBER.match(f))
boolean_fields = sum(1 for r in expected_rows[1:] for f in r if f in ("true", "false"))
for sheet, how in (("Plans", "sheet link"), ("PlansArea", "area link A1:BZ20")):
    rows = book.get(sheet, [])
    shape_ok = len(rows) == len(expected_rows) and all(
        len(r) == len(e) for r, e in zip(rows, expected_rows))
    result(shape_ok, f"{sheet} ({how}) shape {len(rows)} rows x "
                     f"{[len(r) for r in rows]} columns  curl {csv_path} -> "
                     f"{len(expected_rows)} rows x {[len(r) for r in expected_rows]} columns")
    header_ok = rows[:1] == [[("string", h) for h in expected_rows[0]]]
    result(header_ok, f"{sheet} header row = {len(expected_rows[0])} text cells, same names as curl")
    bad, numbers = [], 0
    for i, exp in enumerate(expected_rows[1:], start=1):
        got_row = rows[i] if i < len(rows) else []
        for j, field in enumerate(exp):
            got = got_row[j] if j < len(got_row) else ("empty", "")
            name = f"{expected_rows[0][j]}[{exp[0]}]"
            if NUMBER.match(field):
                numbers += 1
                ok = got[0] == "float" and same_number(got[1], field)
            elif field in ("true", "false"):
                ok = got == ("boolean", field)
            elif field == "":
                # An empty CSV cell (e.g. infeasible_reason of a feasible fabric) is an empty cell.
                ok = got[0] == "empty"
            else:
                ok = got == ("string", field)
            if not ok:
                bad.append(f"{name}: sheet {got[0]} {show(got)!r}, curl {field!r}")
    for b in bad[:10]:
        result(False, f"{sheet} {b}")
    if len(bad) > 10:
        result(False, f"{sheet} ... and {len(bad) - 10} more mismatching cells")
    if not bad:
        tco = expected_rows[0].index("tco.total_usd") if "tco.total_usd" in expected_rows[0] else None
        sample = ", ".join(f"{r[0]}={rows[i + 1][tco][1]}" for i, r in enumerate(expected_rows[1:])) \
            if tco is not None else ""
        result(True, f"{sheet} {len(expected_rows) - 1} data rows: {numbers} numeric cells are numbers "
                     f"equal to curl's, {boolean_fields} booleans, the rest identical text"
                     f" (tco.total_usd: {sample})")

# 3. Formulas over the linked table (Calc counts booleans as numbers).
got = cell(book, "Inputs", "B9")
want = numeric_fields + boolean_fields
result(got[0] == "float" and float(got[1]) == want,
       f"Inputs.B9 COUNT(Plans) = {show(got)}  expected {numeric_fields} numbers + {boolean_fields} booleans = {want}")
got = cell(book, "Inputs", "B10")
row = next((r for r in expected_rows[1:] if r and r[0] == fabric), None)
want = row[expected_rows[0].index("tco.total_usd")] if row and "tco.total_usd" in expected_rows[0] else None
result(want is not None and got[0] == "float" and same_number(got[1], want),
       f"Inputs.B10 INDEX/MATCH(Plans, {fabric}, tco.total_usd) = {show(got)}  curl CSV -> {want}")

print(f"{'FAILED' if failures else 'ALL PASS'}: {failures} failure(s)")
sys.exit(1 if failures else 0)
PY
RC=$?
set -e
END=$(date +%s.%N)
python3 -c "import sys; print('time: %.1fs total, LibreOffice run %ss' % (float(sys.argv[2]) - float(sys.argv[1]), sys.argv[3]))" "$START" "$END" "$LO_SECONDS"
exit "$RC"
