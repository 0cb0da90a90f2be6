#!/usr/bin/env bash
# bench/upload/run.sh - the upload benchmarks of issue 8 ("Speed"), in one command.
#
#   bash bench/upload/run.sh [--rounds N] [--small N] [--large N] [--large-single] [--instructions]
#                            [--delay-ms D] [--no-build] [--no-pin] [--no-doc]
#
# 1. Builds bench/upload (the upload-bench driver over the Swift API, release; the library is
#    compiled into it from this tree by SwiftPM, as in `swift build -c release`).
# 2. Picks a free port; every server of the run listens on it (an offline store belongs to
#    one service root). For each size (--small, default 1,000; --large, default 10,000):
#    a V4 test server (Tests/servers/serve.py v4, odatapy as the tests run it), then
#    `upload-bench prepare`: a store with defining request Products (300 products) and that
#    many queued creates of products the service keys. The server is stopped; the store is
#    the template every measurement of that size copies.
# 3. --rounds rounds (default 5), order alternating; each measurement has a fresh server
#    (pinned to CPU 0) and a fresh copy of the template, and runs `upload-bench upload`
#    (pinned to CPU 1): the queue uploaded
#      batch     through $batch, 100 changes per request (uploadBatchSize 100, the default)
#      single    one HTTP request per change (uploadBatchSize 1)
#    for the small size both ways, for the large size through $batch (and one request per
#    change too with --large-single). Each prints wall time, client CPU (user + sys, every
#    thread), the server's CPU and the time both processes' threads waited for a CPU (the run
#    queue) over the upload, after checking that every change was confirmed and the service
#    has 300 + N products.
#    With --delay-ms D (default 0: not run), the small size both ways once more per round,
#    through Tests/servers/fault_proxy.py on the same port (the server behind it on another)
#    holding every request D ms before passing it on: one round trip of a network with an
#    RTT of D ms per HTTP request, as a back end across a LAN or WAN costs (the TCP handshake a
#    new connection costs there is not delayed: this understates the one-request-per-change
#    mode). The proxy is pinned with the server and its CPU is measured too. Extra rows,
#    labelled; the loopback rows stay as they are.
# 4. With --instructions, once more under valgrind callgrind (not pinned, after the rounds):
#    each upload of step 3 and the same program on a store with no queued change; the
#    difference over the number of changes is the client's instructions per change (the
#    upload alone: opening, the check and closing cancel out). Independent of machine load.
# Raw results: build/bench-upload/results.jsonl (and instructions.jsonl); bench/upload/report.py writes the
# "## Offline store: upload" section of docs/benchmarks.md (unless --no-doc).
set -euo pipefail
ARGS="$*"

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT="$ROOT/build/bench-upload"
PY="${ODS_TEST_PYTHON:-$ROOT/.venv/bin/python}"
ROUNDS=5
SMALL=1000
LARGE=10000
LARGE_SINGLE=0
DELAY_MS=0
INSTRUCTIONS=0
BUILD=1
PIN=1
DOC=1

while [ $# -gt 0 ]; do
    case "$1" in
        --rounds) ROUNDS=$2; shift 2 ;;
        --small) SMALL=$2; shift 2 ;;
        --large) LARGE=$2; shift 2 ;;
        --large-single) LARGE_SINGLE=1; shift ;;
        --delay-ms) DELAY_MS=$2; shift 2 ;;
        --instructions) INSTRUCTIONS=1; shift ;;
        --no-build) BUILD=0; shift ;;
        --no-pin) PIN=0; shift ;;
        --no-doc) DOC=0; shift ;;
        *) echo "run.sh: unknown argument $1" >&2; exit 64 ;;
    esac
done

cd "$ROOT"
mkdir -p "$OUT"
if [ ! -x "$PY" ]; then
    echo "== creating .venv (Tests/servers/requirements.txt)" >&2
    python3 -m venv "$ROOT/.venv"
    "$ROOT/.venv/bin/pip" install -q -r Tests/servers/requirements.txt
    PY="$ROOT/.venv/bin/python"
fi
if [ "$BUILD" = 1 ]; then
    echo "== building bench/upload (release)" >&2
    swift build -c release --package-path bench/upload >&2
fi
BIN="$(swift build -c release --package-path bench/upload --show-bin-path)/upload-bench"
[ -x "$BIN" ] || { echo "run.sh: $BIN missing (drop --no-build)" >&2; exit 1; }

PIN_SERVER=()
PIN_CLIENT=()
if [ "$PIN" = 1 ] && command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
    PIN_SERVER=(taskset -c 0)
    PIN_CLIENT=(taskset -c 1)
fi
free_port() { "$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
PORT=$(free_port)

SERVER_PID=""
SERVICE=""
start_server() {  # $1: the port (default $PORT)
    local port=${1:-$PORT}
    coproc SERVER { exec "${PIN_SERVER[@]}" "$PY" Tests/servers/serve.py v4 --port "$port" 2>>"$OUT/server.log"; }
    local line=""
    if ! read -r -t 120 line <&"${SERVER[0]}" || [[ "$line" != READY\ * ]]; then
        echo "run.sh: the v4 server did not start (see $OUT/server.log)" >&2
        exit 1
    fi
    SERVICE=${line#READY }
    SERVER_PID=$SERVER_PID
}
stop_server() {
    eval "exec ${SERVER[1]}>&-"
    wait "$SERVER_PID" || true
}
# The delay proxy on $PORT in front of a server on another port (--delay-ms).
PROXY_PID=""
start_proxy() {
    start_server "$(free_port)"
    local upstream=$SERVICE line=""
    coproc PROXY { exec "${PIN_SERVER[@]}" "$PY" Tests/servers/fault_proxy.py --upstream "$upstream" --port "$PORT" 2>>"$OUT/proxy.log"; }
    if ! read -r -t 60 line <&"${PROXY[0]}" || [[ "$line" != READY\ * ]]; then
        echo "run.sh: the delay proxy did not start (see $OUT/proxy.log)" >&2
        exit 1
    fi
    PROXY_PID=$PROXY_PID
    SERVICE=${line#READY }
    "$PY" - "http://127.0.0.1:$PORT/__fault" "$DELAY_MS" <<'PYEOF'
import json, sys, urllib.request
req = urllib.request.Request(sys.argv[1], data=json.dumps({"mode": "slow", "count": -1, "delay_ms": int(sys.argv[2])}).encode(),
                             method="POST", headers={"Content-Type": "application/json"})
urllib.request.urlopen(req).read()
PYEOF
}
stop_proxy() {
    eval "exec ${PROXY[1]}>&-"
    wait "$PROXY_PID" || true
    stop_server
}
proc_cpu_ms() {  # utime + stime of a process, ms
    awk -v tck="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); print ($12 + $13) * 1000 / tck }' "/proc/$1/stat"
}

# --- Templates ------------------------------------------------------------------------------
SIZES=("$SMALL" "$LARGE")
[ "$INSTRUCTIONS" = 1 ] && SIZES+=(0)
for n in "${SIZES[@]}"; do
    rm -f "$OUT/template-$n.store"*
    start_server
    echo "== making the template store: $n queued creates" >&2
    "${PIN_CLIENT[@]}" "$BIN" prepare --service "$SERVICE" --store "$OUT/template-$n.store" --creates "$n" >"$OUT/prepare-$n.json"
    stop_server
done

# --- Rounds ---------------------------------------------------------------------------------
RESULTS="$OUT/results.jsonl"
: >"$RESULTS"
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
order=("batch $SMALL" "single $SMALL" "batch $LARGE")
[ "$LARGE_SINGLE" = 1 ] && order+=("single $LARGE")
[ "$DELAY_MS" -gt 0 ] && order+=("batchdelay $SMALL" "singledelay $SMALL")
run_one() {  # $1: mode (batch, single, batchdelay, singledelay), $2: changes, $3: round
    local mode=$1 n=$2 round=$3 size line load proxy_before="" proxy=null
    size=$([[ "$mode" = batch* ]] && echo 100 || echo 1)
    rm -f "$OUT/run.store"*
    cp "$OUT/template-$n.store" "$OUT/run.store"
    if [[ "$mode" = *delay ]]; then start_proxy; proxy_before=$(proc_cpu_ms "$PROXY_PID"); else start_server; fi
    load=$(cut -d' ' -f1 /proc/loadavg)
    line=$("${PIN_CLIENT[@]}" "$BIN" upload --service "$SERVICE" --store "$OUT/run.store" --batch-size "$size" --expect "$n" --server-pid "$SERVER_PID")
    if [[ "$mode" = *delay ]]; then
        proxy=$(awk -v a="$proxy_before" -v b="$(proc_cpu_ms "$PROXY_PID")" 'BEGIN { print b - a }')
        stop_proxy
    else
        stop_server
    fi
    echo "{\"key\":\"$mode-$n\",\"mode\":\"$mode\",\"changes\":$n,\"round\":$round,\"loadavg\":$load,\"delay_ms\":$DELAY_MS,\"proxy_cpu_ms\":$proxy,\"result\":$line}" >>"$RESULTS"
    echo "   round $round $mode $n: $line" >&2
}
for ((round = 1; round <= ROUNDS; round++)); do
    if ((round % 2 == 0)); then
        for ((i = ${#order[@]} - 1; i >= 0; i--)); do run_one ${order[$i]} "$round"; done
    else
        for entry in "${order[@]}"; do run_one $entry "$round"; done
    fi
done
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)

# --- Instructions ---------------------------------------------------------------------------
INSTR="$OUT/instructions.jsonl"
rm -f "$INSTR"
if [ "$INSTRUCTIONS" = 1 ]; then
    command -v valgrind >/dev/null || { echo "run.sh: --instructions needs valgrind" >&2; exit 1; }
    count_one() {  # $1: mode, $2: changes; prints the client's instructions (Ir)
        local mode=$1 n=$2 size
        size=$([ "$mode" = batch ] && echo 100 || echo 1)
        rm -f "$OUT/run.store"* "$OUT/callgrind.out"
        cp "$OUT/template-$n.store" "$OUT/run.store"
        start_server
        valgrind --tool=callgrind --callgrind-out-file="$OUT/callgrind.out" \
            "$BIN" upload --service "$SERVICE" --store "$OUT/run.store" --batch-size "$size" --expect "$n" >/dev/null 2>"$OUT/callgrind.log"
        stop_server
        grep -E '^(summary|totals):' "$OUT/callgrind.out" | head -1 | awk '{print $2}'
    }
    for entry in "batch $SMALL" "single $SMALL" "batch $LARGE"; do
        set -- $entry
        zero=$(count_one "$1" 0)
        full=$(count_one "$1" "$2")
        echo "{\"key\":\"$1-$2\",\"changes\":$2,\"ir\":$full,\"ir_empty\":$zero}" >>"$INSTR"
        echo "   instructions $1 $2: $full (no queued change: $zero)" >&2
    done
fi

REPORT=("$PY" bench/upload/report.py --command "bash bench/upload/run.sh${ARGS:+ $ARGS}" --results "$RESULTS" --rounds "$ROUNDS" --small "$SMALL" --large "$LARGE"
        --prepare-small "$OUT/prepare-$SMALL.json" --prepare-large "$OUT/prepare-$LARGE.json"
        --load-start "$LOAD_START" --load-end "$LOAD_END" --pinned "$PIN" --delay-ms "$DELAY_MS")
[ -s "$INSTR" ] && REPORT+=(--instructions "$INSTR")
if [ "$DOC" = 1 ]; then
    "${REPORT[@]}" --doc docs/benchmarks.md
    echo "== wrote docs/benchmarks.md (## Offline store: upload)" >&2
else
    "${REPORT[@]}"
fi
