#!/usr/bin/env bash
# Load proof for fabric-tco: builds the release binary, starts it on a free loopback port and
# drives four endpoints one after another with wrk, with the same settings:
#
#   healthz  GET  /healthz                                   (baseline: no work)
#   plan     POST /v1/plans  {"gpus":1024,"gpu_model":"h100","fabrics":[...all three...]}
#            (the same request every time: after the first, answered from the plan memo)
#   plan_distinct  the same, with a different "gpus" (512..2559) in every request: every plan
#            is computed (the memo never holds it)
#   value    GET  /v1/value?metric=tco.total_usd&fabric=infiniband&gpus=1024
#
# It reports, per endpoint, requests/s, p50/p99 latency, errors (non-2xx + socket errors), the
# service's CPU per request and its peak RSS (VmHWM), prints a markdown table, checks the
# targets (PASS/MISS) and stops the service with SIGTERM, also on failure.
#
# Usage:  bash benches/load.sh            (from anywhere; the repo root is found from the script)
#
# Environment (all optional):
#   FABRIC_TCO_BIN   use this binary instead of running `cargo build --release --locked`
#   DURATION         seconds (or a wrk duration such as 30s, 1m) per endpoint   [10]
#   CONNECTIONS      wrk connections                                            [64]
#   THREADS          wrk threads                                                [2]
#   WARMUP           seconds of unreported load before each endpoint, 0 = none  [2]
#   TIMEOUT          wrk request timeout (a late reply counts as an error)      [2s]
#   PIN              0: wrk and the service share all cores                      [0]
#                    1: wrk pinned to CPU $PIN_WRK_CPU, service to CPU $PIN_SVC_CPU (taskset)
#                    both: run the whole sequence twice, shared then pinned
#   PIN_WRK_CPU, PIN_SVC_CPU                                                    [0, 1]
#   FABRIC_TCO_WORKERS  passed to the service (default there: one per usable core)
#   RUST_LOG         service log level [info, the service's default: one log line per request]
#   PORT             listen on this port instead of a random free one
#   PLAN_BODY        JSON body for POST /v1/plans (default above)
#   RESULTS_DIR      keep raw wrk output, service logs and results.md here
#                    (default: a temporary directory, deleted unless the run fails)
#   FAIL_ON_MISS=1   also exit non-zero when a target is missed
#
# Exit status: 0 no request errored; 1 a request errored (non-2xx, socket error or timeout), an
# endpoint failed its pre-check, or the service did not stop cleanly on SIGTERM; 2 set-up failed
# (build, tools, start-up); 3 a target was missed with FAIL_ON_MISS=1.

set -Eeuo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$SCRIPT_DIR/.." && pwd)
LUA="$SCRIPT_DIR/load/wrk.lua"

DURATION=${DURATION:-10}
CONNECTIONS=${CONNECTIONS:-64}
THREADS=${THREADS:-2}
WARMUP=${WARMUP:-2}
TIMEOUT=${TIMEOUT:-2s}
PIN=${PIN:-0}
PIN_WRK_CPU=${PIN_WRK_CPU:-0}
PIN_SVC_CPU=${PIN_SVC_CPU:-1}
SVC_LOG_LEVEL=${RUST_LOG:-info}
PLAN_BODY=${PLAN_BODY:-'{"gpus":1024,"gpu_model":"h100","fabrics":["infiniband","roce","roce_adaptive"]}'}
FAIL_ON_MISS=${FAIL_ON_MISS:-0}

# Targets.
TARGET_PLAN_RATIO=0.5      # plan req/s >= 0.5 x healthz req/s
TARGET_P99_MS=10           # p99 < 10 ms (defined at 64 connections)
TARGET_P99_CONNECTIONS=64
TARGET_RSS_BYTES=100000000 # peak RSS < 100 MB (10^6 bytes)

log() { printf '[load] %s\n' "$*" >&2; }
die() {
    local code=$1
    shift
    printf '[load] error: %s\n' "$*" >&2
    exit "$code"
}

# ---------------------------------------------------------------------------------------------
# Arguments

[[ $DURATION =~ ^[0-9]+$ ]] && DURATION="${DURATION}s"
[[ $DURATION =~ ^[0-9]+[smh]$ ]] || die 2 "DURATION='$DURATION' is not a number of seconds (or 30s, 1m)"
[[ $CONNECTIONS =~ ^[1-9][0-9]*$ ]] || die 2 "CONNECTIONS='$CONNECTIONS' is not a positive integer"
[[ $THREADS =~ ^[1-9][0-9]*$ ]] || die 2 "THREADS='$THREADS' is not a positive integer"
((CONNECTIONS >= THREADS)) || die 2 "CONNECTIONS ($CONNECTIONS) must be >= THREADS ($THREADS)"
[[ $WARMUP =~ ^[0-9]+$ ]] || die 2 "WARMUP='$WARMUP' is not a whole number of seconds"
[[ $TIMEOUT =~ ^[1-9][0-9]*[smh]?$ ]] || die 2 "TIMEOUT='$TIMEOUT' must be whole seconds (2, 2s) or minutes (1m)"
case $PIN in
    0) MODES=(shared) ;;
    1) MODES=(pinned) ;;
    both) MODES=(shared pinned) ;;
    *) die 2 "PIN='$PIN' must be 0, 1 or both" ;;
esac
[[ -f $LUA ]] || die 2 "missing $LUA"

# ---------------------------------------------------------------------------------------------
# State and cleanup (the trap stops whatever is still running, on success and on failure)

WORK=""
KEEP_WORK=0
SVC_PID=""
WRK_PID=""
FAILED=0

stop_service() {
    # SIGTERM, then wait (the service drains in-flight requests for up to 10 s); SIGKILL after
    # 20 s. Sets STOP_STATUS to the exit status and STOP_SECONDS to the time it took.
    local pid=$SVC_PID i status=0
    STOP_STATUS=""
    STOP_SECONDS=""
    [[ -n $pid ]] || return 0
    SVC_PID=""
    if ! kill -0 "$pid" 2>/dev/null; then
        wait "$pid" 2>/dev/null || status=$?
        STOP_STATUS="exited before SIGTERM (status $status)"
        return 1
    fi
    local t0=$EPOCHREALTIME
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 200; i++)); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
        STOP_STATUS="did not stop within 20 s of SIGTERM; killed"
        return 1
    fi
    wait "$pid" 2>/dev/null || status=$?
    STOP_SECONDS=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')
    STOP_STATUS=$status
    [[ $status == 0 ]]
}

# shellcheck disable=SC2317 # invoked through the EXIT trap
cleanup() {
    local rc=$?
    trap - EXIT
    if [[ -n $WRK_PID ]] && kill -0 "$WRK_PID" 2>/dev/null; then
        kill -TERM "$WRK_PID" 2>/dev/null || true
        wait "$WRK_PID" 2>/dev/null || true
    fi
    if [[ -n $SVC_PID ]]; then
        log "stopping the service (pid $SVC_PID) with SIGTERM"
        stop_service || log "service stop: $STOP_STATUS"
    fi
    if [[ -n $WORK && -d $WORK ]]; then
        if ((rc != 0 || KEEP_WORK)); then
            log "raw output kept in $WORK"
        else
            rm -rf "$WORK"
        fi
    fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if [[ -n ${RESULTS_DIR:-} ]]; then
    mkdir -p "$RESULTS_DIR"
    WORK=$(cd "$RESULTS_DIR" && pwd)
    KEEP_WORK=1
else
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/fabric-tco-load.XXXXXX")
fi

# ---------------------------------------------------------------------------------------------
# Tools

ensure_tool() {
    local cmd=$1 pkg=$2
    command -v "$cmd" >/dev/null 2>&1 && return 0
    log "$cmd not found; installing Debian package '$pkg'"
    local sudo=()
    if ((EUID != 0)); then
        command -v sudo >/dev/null 2>&1 || die 2 "$cmd is missing and I am not root (apt-get install $pkg)"
        sudo=(sudo)
    fi
    command -v apt-get >/dev/null 2>&1 || die 2 "$cmd is missing and there is no apt-get to install $pkg"
    if ! "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$pkg" >&2; then
        "${sudo[@]}" apt-get update -qq >&2 || true
        "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$pkg" >&2 ||
            die 2 "could not install $pkg"
    fi
    command -v "$cmd" >/dev/null 2>&1 || die 2 "$cmd still missing after installing $pkg"
}

ensure_tool wrk wrk
ensure_tool curl curl
if [[ $PIN != 0 ]]; then
    ensure_tool taskset util-linux
    NCPU=$(nproc)
    ((NCPU >= 2)) || die 2 "PIN=$PIN needs at least 2 usable CPUs (nproc says $NCPU)"
fi

# ---------------------------------------------------------------------------------------------
# Binary

if [[ -n ${FABRIC_TCO_BIN:-} ]]; then
    BIN=$FABRIC_TCO_BIN
    log "using FABRIC_TCO_BIN=$BIN (no build)"
else
    command -v cargo >/dev/null 2>&1 || die 2 "cargo not found (or set FABRIC_TCO_BIN)"
    log "building: cargo build --release --locked (in $ROOT)"
    (cd "$ROOT" && cargo build --release --locked) || die 2 "cargo build failed"
    target_dir=${CARGO_TARGET_DIR:-target}
    [[ $target_dir == /* ]] || target_dir="$ROOT/$target_dir"
    BIN="$target_dir/release/fabric-tco"
fi
[[ -x $BIN ]] || die 2 "no executable at $BIN"

# ---------------------------------------------------------------------------------------------
# Endpoints

printf '%s' "$PLAN_BODY" >"$WORK/plan-body.json"
EP_NAMES=(healthz plan plan_distinct value)
EP_METHODS=(GET POST POST GET)
EP_PATHS=(/healthz /v1/plans /v1/plans '/v1/value?metric=tco.total_usd&fabric=infiniband&gpus=1024')
EP_BODIES=("" "$WORK/plan-body.json" "$WORK/plan-body.json" "")
EP_VARY=("" "" 1 "")

# ---------------------------------------------------------------------------------------------
# Measurement helpers

CLK_TCK=$(getconf CLK_TCK)

# CPU seconds (user + system) used so far by process $1.
proc_cpu_seconds() {
    local stat
    stat=$(<"/proc/$1/stat")
    stat=${stat##*) } # drop "pid (comm) "; fields now start at field 3 (state)
    # shellcheck disable=SC2086 # word splitting is the point
    set -- $stat
    awk -v u="${12}" -v s="${13}" -v hz="$CLK_TCK" 'BEGIN { printf "%.3f", (u + s) / hz }'
}

# Busy and steal CPU seconds of the whole machine so far: "busy steal".
machine_cpu_seconds() {
    awk -v hz="$CLK_TCK" '$1 == "cpu" {
        printf "%.3f %.3f", ($2 + $3 + $4 + $7 + $8) / hz, $9 / hz; exit }' /proc/stat
}

# Sets CHILD_CPU to the CPU seconds (user + system) of this shell's reaped children (wrk, once
# waited for). Must run in this shell, not in $(...): a subshell's `times` starts from zero.
children_cpu_seconds() {
    times >"$WORK/.times" # second line: children, e.g. "0m1.234s 0m0.567s"
    CHILD_CPU=$(awk 'NR == 2 {
        s = 0
        for (i = 1; i <= NF; i++) { split($i, b, /[ms]/); s += b[1] * 60 + b[2] }
        printf "%.3f", s }' "$WORK/.times")
}

status_kb() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }

port_in_use() {
    local hex
    hex=$(printf '%04X' "$1")
    awk -v p=":$hex" 'FNR > 1 && substr($2, length($2) - 4) == p { found = 1 }
        END { exit !found }' /proc/net/tcp /proc/net/tcp6 2>/dev/null
}

# True when process $1 holds the listening socket on port $2.
owns_listener() {
    local pid=$1 hex inode fd
    hex=$(printf '%04X' "$2")
    while read -r inode; do
        for fd in "/proc/$pid/fd/"*; do
            [[ $(readlink "$fd" 2>/dev/null) == "socket:[$inode]" ]] && return 0
        done
    done < <(awk -v p=":$hex" 'FNR > 1 && $4 == "0A" && substr($2, length($2) - 4) == p {
        print $10 }' /proc/net/tcp /proc/net/tcp6 2>/dev/null)
    return 1
}

# Starts the service for mode $1; sets SVC_PID and BASE.
start_service() {
    local mode=$1 attempt port i
    local prefix=()
    [[ $mode == pinned ]] && prefix=(taskset -c "$PIN_SVC_CPU")
    for ((attempt = 1; attempt <= 5; attempt++)); do
        if [[ -n ${PORT:-} ]]; then
            port=$PORT
        else
            port=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
        fi
        if port_in_use "$port"; then
            [[ -n ${PORT:-} ]] && die 2 "PORT=$port is already in use"
            continue
        fi
        FABRIC_TCO_BIND="127.0.0.1:$port" RUST_LOG="$SVC_LOG_LEVEL" \
            "${prefix[@]}" "$BIN" >"$WORK/service-$mode.log" 2>&1 &
        SVC_PID=$!
        for ((i = 0; i < 300; i++)); do
            kill -0 "$SVC_PID" 2>/dev/null || break
            if curl -fsS --max-time 1 -o /dev/null "http://127.0.0.1:$port/healthz" 2>/dev/null; then
                if owns_listener "$SVC_PID" "$port"; then
                    BASE="http://127.0.0.1:$port"
                    return 0
                fi
                die 2 "something else answers on port $port"
            fi
            sleep 0.1
        done
        if kill -0 "$SVC_PID" 2>/dev/null; then
            die 2 "service did not answer /healthz within 30 s (log: $WORK/service-$mode.log)"
        fi
        wait "$SVC_PID" 2>/dev/null || true
        SVC_PID=""
        log "service exited at start-up on port $port (attempt $attempt):"
        tail -n 3 "$WORK/service-$mode.log" >&2 || true
        [[ -n ${PORT:-} ]] && break
    done
    KEEP_WORK=1
    die 2 "could not start the service (log: $WORK/service-$mode.log)"
}

# One curl request per endpoint before any load: each must answer 2xx.
precheck() {
    local i code args
    for i in "${!EP_NAMES[@]}"; do
        args=(-sS -o "$WORK/precheck-${EP_NAMES[i]}.out" -w '%{http_code}' -X "${EP_METHODS[i]}")
        if [[ -n ${EP_BODIES[i]} ]]; then
            args+=(-H 'Content-Type: application/json' --data-binary "@${EP_BODIES[i]}")
        fi
        code=$(curl "${args[@]}" "$BASE${EP_PATHS[i]}") || code=000
        if [[ $code != 2?? ]]; then
            log "pre-check failed: ${EP_METHODS[i]} ${EP_PATHS[i]} answered $code:"
            head -c 2000 "$WORK/precheck-${EP_NAMES[i]}.out" >&2 || true
            printf '\n' >&2
            KEEP_WORK=1
            exit 1
        fi
        log "pre-check ${EP_METHODS[i]} ${EP_PATHS[i]} -> $code ($(wc -c <"$WORK/precheck-${EP_NAMES[i]}.out") bytes)"
    done
}

# Runs wrk in the background (so a signal reaches the trap at once) and waits for it.
run_wrk() {
    local out=$1 duration=$2 i=$3 mode=$4
    local prefix=()
    [[ $mode == pinned ]] && prefix=(taskset -c "$PIN_WRK_CPU")
    LOAD_METHOD=${EP_METHODS[i]} LOAD_BODY_FILE=${EP_BODIES[i]} LOAD_VARY_GPUS=${EP_VARY[i]} \
        "${prefix[@]}" wrk -t "$THREADS" -c "$CONNECTIONS" -d "$duration" --timeout "$TIMEOUT" \
        -s "$LUA" "$BASE${EP_PATHS[i]}" >"$out" 2>&1 &
    WRK_PID=$!
    local status=0
    wait "$WRK_PID" || status=$?
    WRK_PID=""
    return "$status"
}

# Results, keyed "mode/endpoint/field".
declare -A R
declare -A M # per mode: "mode/field"

measure_mode() {
    local mode=$1 i name out line kv k
    log "--- mode: $mode ---"
    start_service "$mode"
    # actix names its worker threads "actix-rt|system:0|arbiter:N" (comm keeps 15 characters).
    M[$mode/workers]=$(cat /proc/"$SVC_PID"/task/*/comm | awk '/^actix-rt\|system/ { n++ } END { print n + 0 }')
    M[$mode/rss_idle_kb]=$(status_kb "$SVC_PID" VmRSS)
    log "service pid $SVC_PID on $BASE (workers: ${M[$mode/workers]}, RSS at start $((M[$mode/rss_idle_kb] / 1024)) MiB)"
    precheck

    for i in "${!EP_NAMES[@]}"; do
        name=${EP_NAMES[i]}
        if ((WARMUP > 0)); then
            run_wrk "$WORK/warmup-$mode-$name.txt" "${WARMUP}s" "$i" "$mode" ||
                die 1 "wrk failed during warm-up of $name: $(tail -n 3 "$WORK/warmup-$mode-$name.txt")"
        fi
        out="$WORK/wrk-$mode-$name.txt"
        log "$name: ${EP_METHODS[i]} ${EP_PATHS[i]} for $DURATION ($CONNECTIONS connections, $THREADS threads)"
        local svc0 mach0 kids0 svc1 mach1 kids1 t0 t1
        svc0=$(proc_cpu_seconds "$SVC_PID")
        mach0=$(machine_cpu_seconds)
        children_cpu_seconds
        kids0=$CHILD_CPU
        t0=$EPOCHREALTIME
        run_wrk "$out" "$DURATION" "$i" "$mode" || die 1 "wrk failed on $name: $(tail -n 3 "$out")"
        t1=$EPOCHREALTIME
        children_cpu_seconds
        kids1=$CHILD_CPU
        mach1=$(machine_cpu_seconds)
        kill -0 "$SVC_PID" 2>/dev/null || die 1 "the service died during the $name run"
        svc1=$(proc_cpu_seconds "$SVC_PID")

        line=$(grep '^LOADRESULT ' "$out") || die 2 "no LOADRESULT line in $out"
        for kv in ${line#LOADRESULT }; do
            R[$mode/$name/${kv%%=*}]=${kv#*=}
        done
        R[$mode/$name/hwm_kb]=$(status_kb "$SVC_PID" VmHWM)
        # Derived figures, all through awk (floating point).
        local derived
        derived=$(awk -v req="${R[$mode/$name/requests]}" -v dur="${R[$mode/$name/duration_us]}" \
            -v s0="$svc0" -v s1="$svc1" -v k0="$kids0" -v k1="$kids1" -v t0="$t0" -v t1="$t1" \
            -v m0="${mach0% *}" -v m1="${mach1% *}" -v st0="${mach0#* }" -v st1="${mach1#* }" 'BEGIN {
                wall = t1 - t0; svc = s1 - s0; wrk = k1 - k0; busy = m1 - m0
                other = busy - svc - wrk; if (other < 0) other = 0
                printf "rps=%.1f svc_cores=%.2f wrk_cores=%.2f other_cores=%.2f steal_cores=%.2f svc_us_per_req=%.1f",
                    req / (dur / 1e6), svc / wall, wrk / wall, other / wall, (st1 - st0) / wall,
                    (req > 0 ? svc * 1e6 / req : 0) }')
        for kv in $derived; do
            R[$mode/$name/${kv%%=*}]=${kv#*=}
        done
        k="$mode/$name"
        R[$k/errors]=$((${R[$k/non2xx]} + ${R[$k/connect]} + ${R[$k/read]} + ${R[$k/write]} + ${R[$k/timeout]}))
        ((${R[$k/errors]} == 0)) || FAILED=1
        log "$name: ${R[$mode/$name/rps]} req/s, p50 ${R[$mode/$name/p50_us]} us, p99 ${R[$mode/$name/p99_us]} us, errors ${R[$mode/$name/errors]}"
    done

    # The peak is the largest reading: the kernel's VmHWM is updated lazily and a later reading
    # can be lower than an earlier one.
    local hwm
    hwm=$(status_kb "$SVC_PID" VmHWM)
    for name in "${EP_NAMES[@]}"; do
        ((${R[$mode/$name/hwm_kb]} > hwm)) && hwm=${R[$mode/$name/hwm_kb]}
    done
    M[$mode/hwm_kb]=$hwm
    log "stopping the service (pid $SVC_PID) with SIGTERM"
    if stop_service; then
        M[$mode/stop]="exit 0 after SIGTERM in ${STOP_SECONDS} s"
    else
        M[$mode/stop]="NOT CLEAN: $STOP_STATUS"
        FAILED=1
    fi
    trim_log "$WORK/service-$mode.log"
}

# The access log has one line per request (tens of MB per run): keep its start and its end.
trim_log() {
    local f=$1 n
    n=$(wc -l <"$f")
    ((n > 100)) || return 0
    {
        head -n 40 "$f"
        printf '... %d lines omitted by benches/load.sh ...\n' "$((n - 80))"
        tail -n 40 "$f"
    } >"$f.trimmed"
    mv "$f.trimmed" "$f"
}

# ---------------------------------------------------------------------------------------------
# Run

CPU_MODEL=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo)
MACHINE="$(nproc) cores ($CPU_MODEL), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), Linux $(uname -r)"
WRK_VERSION=$(wrk -v 2>&1 | head -n 1 | awk '{ print $1, $2 }' || true)
LOADAVG=$(cut -d' ' -f1-3 /proc/loadavg)
busy0=$(machine_cpu_seconds)
sleep 1
busy1=$(machine_cpu_seconds)
BUSY_BEFORE=$(awk -v a="${busy0% *}" -v b="${busy1% *}" 'BEGIN { printf "%.2f", b - a }')
log "machine: $MACHINE; load average $LOADAVG; CPU busy before the run: $BUSY_BEFORE cores (1 s sample)"
if awk -v b="$BUSY_BEFORE" 'BEGIN { exit !(b > 0.10) }'; then
    log "warning: the machine is already busy ($BUSY_BEFORE cores): the figures will be disturbed"
fi
for mode in "${MODES[@]}"; do
    measure_mode "$mode"
done

# ---------------------------------------------------------------------------------------------
# Report

ms() { awk -v u="$1" 'BEGIN { printf "%.2f", u / 1000 }'; }
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
mode_label() {
    case $1 in
        shared) printf 'shared' ;;
        pinned) printf 'pinned (wrk CPU %s, service CPU %s)' "$PIN_WRK_CPU" "$PIN_SVC_CPU" ;;
    esac
}

REPORT="$WORK/results.md"
{
    echo "### fabric-tco load proof"
    echo
    echo "- machine: $MACHINE; before the run: load average $LOADAVG, $BUSY_BEFORE cores busy (1 s sample)"
    echo "- load: $WRK_VERSION, $CONNECTIONS connections, $THREADS threads, $DURATION per endpoint after ${WARMUP} s warm-up, timeout $TIMEOUT, keep-alive"
    echo "- service: \`$(basename "$BIN")\`, RUST_LOG=$SVC_LOG_LEVEL, FABRIC_TCO_WORKERS=${FABRIC_TCO_WORKERS:-default}"
    for mode in "${MODES[@]}"; do
        echo "- $(mode_label "$mode"): ${M[$mode/workers]} worker thread(s); peak RSS (VmHWM) $(mib "${M[$mode/hwm_kb]}") MiB, $(mib "${M[$mode/rss_idle_kb]}") MiB at start; stop: ${M[$mode/stop]}"
    done
    echo
    echo "| mode | endpoint | req/s | × healthz | p50 ms | p99 ms | errors | service CPU µs/req | cores: service / wrk / other | VmHWM MiB |"
    echo "|---|---|---:|---:|---:|---:|---:|---:|---|---:|"
    for mode in "${MODES[@]}"; do
        for name in "${EP_NAMES[@]}"; do
            k="$mode/$name"
            printf '| %s | %s | %.0f | %s | %s | %s | %s | %s | %s / %s / %s | %s |\n' \
                "$mode" "$name" "${R[$k/rps]}" "$(ratio "${R[$k/rps]}" "${R[$mode/healthz/rps]}")" \
                "$(ms "${R[$k/p50_us]}")" "$(ms "${R[$k/p99_us]}")" "${R[$k/errors]}" \
                "${R[$k/svc_us_per_req]}" "${R[$k/svc_cores]}" "${R[$k/wrk_cores]}" \
                "${R[$k/other_cores]}" "$(mib "${R[$k/hwm_kb]}")"
        done
    done
    echo
    echo "errors = non-2xx + connect + read + write + timeout; VmHWM is the service's peak RSS read after that endpoint's run; \"other\" is CPU used on the machine by neither wrk nor the service during that run."
} >"$REPORT"

# Targets.
MISSED=0
check() { # name, mode, measured, pass(0/1)
    local verdict=PASS
    if [[ $4 != 1 ]]; then
        verdict=MISS
        MISSED=1
    fi
    printf '| %s | %s | %s | %s |\n' "$1" "$2" "$3" "$verdict" >>"$REPORT"
}
{
    echo
    echo "| target | mode | measured | result |"
    echo "|---|---|---|---|"
} >>"$REPORT"
for mode in "${MODES[@]}"; do
    for name in plan plan_distinct; do
        r=$(ratio "${R[$mode/$name/rps]}" "${R[$mode/healthz/rps]}")
        check "$name req/s ≥ ${TARGET_PLAN_RATIO} × healthz" "$mode" "${r} × ($(printf '%.0f' "${R[$mode/$name/rps]}") / $(printf '%.0f' "${R[$mode/healthz/rps]}"))" \
            "$(awk -v r="${R[$mode/$name/rps]}" -v h="${R[$mode/healthz/rps]}" -v t="$TARGET_PLAN_RATIO" 'BEGIN { print (r >= t * h) ? 1 : 0 }')"
    done
    total=0
    for name in "${EP_NAMES[@]}"; do total=$((total + ${R[$mode/$name/errors]})); done
    check "zero errors" "$mode" "$total" "$((total == 0 ? 1 : 0))"
    for name in "${EP_NAMES[@]}"; do
        note=""
        ((CONNECTIONS == TARGET_P99_CONNECTIONS)) || note=" (at $CONNECTIONS connections, target is for $TARGET_P99_CONNECTIONS)"
        check "p99 < ${TARGET_P99_MS} ms: $name" "$mode" "$(ms "${R[$mode/$name/p99_us]}") ms$note" \
            "$(awk -v p="${R[$mode/$name/p99_us]}" -v t="$TARGET_P99_MS" 'BEGIN { print (p < t * 1000) ? 1 : 0 }')"
    done
    check "peak RSS < 100 MB" "$mode" "$(mib "${M[$mode/hwm_kb]}") MiB" \
        "$((${M[$mode/hwm_kb]} * 1024 < TARGET_RSS_BYTES ? 1 : 0))"
done

NOTES=()
NOTES+=("wrk and the service run on the same $(nproc)-core machine: in shared mode wrk's own CPU (the 'wrk' cores column) is taken from the service, so req/s is what this box does with load generator and service together, not the service's ceiling; 'service CPU µs/req' is the figure that does not depend on that.")
for mode in "${MODES[@]}"; do
    for name in "${EP_NAMES[@]}"; do
        if awk -v o="${R[$mode/$name/other_cores]}" 'BEGIN { exit !(o > 0.10) }'; then
            NOTES+=("$mode/$name: other processes used ${R[$mode/$name/other_cores]} cores during the run: that run is disturbed; repeat on an idle machine.")
        fi
        if awk -v o="${R[$mode/$name/steal_cores]}" 'BEGIN { exit !(o > 0.05) }'; then
            NOTES+=("$mode/$name: the hypervisor stole ${R[$mode/$name/steal_cores]} cores during the run.")
        fi
    done
done
{
    echo
    for n in "${NOTES[@]}"; do echo "- $n"; done
} >>"$REPORT"

echo
cat "$REPORT"
echo
if [[ -n ${RESULTS_DIR:-} ]]; then
    echo "raw wrk output, service logs and results.md: $WORK"
fi

if ((FAILED)); then
    echo "RESULT: FAIL (a request errored, or the service did not stop cleanly)"
    KEEP_WORK=1
    exit 1
fi
if ((MISSED)); then
    echo "RESULT: no request errored; some targets MISSED (see above)"
    if ((FAIL_ON_MISS == 1)); then
        exit 3
    fi
else
    echo "RESULT: PASS (no request errored, every target met)"
fi
exit 0
