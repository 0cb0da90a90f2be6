#!/usr/bin/env bash
# bench/get/run.sh - the online GET benchmark of issue 2, in one command.
#
#   bash bench/get/run.sh [--runs N] [--count N] [--warmup N] [--inflight N] [--no-build]
#                         [--no-pin] [--no-doc] [--clients LIST] [--compare-lib DIR]
#                         [--instructions]
#
# Builds the library (CMake driving SwiftPM, release, as shipped) and the two C programs,
# then for each of --runs rounds (default 5) measures every client against a FRESH test
# server (Tests/servers/serve.py; the servers are stateful and slow), alternating the order
# of the clients from one round to the next:
#
#   ods-v4   bench/get/ods_get.c   libodatastore, V4 server (odatapy)
#   curl-v4  bench/get/curl_get.c  plain libcurl multi, same server, same URLs and headers
#   pyodata4 bench/get/peers.py    python-odata, V4 server
#   ods-v2   ods_get.c             libodatastore, V2 server (pyslet)
#   curl-v2  curl_get.c --v2       plain libcurl, V2 server
#   pyodata2 peers.py              pyodata, V2 server
#   pyodata4-seq, pyodata2-seq     the same peers with one thread (sequential GETs)
#   alt-v4, alt-v2                 ods_get with another build of the library (--compare-lib DIR,
#                                  e.g. a branch with a performance fix), same rounds
#
# Each client does --warmup GETs (default 50), then --count (default 1000) timed GETs of
# Products(<id>) with --inflight (default 8) in flight, and prints one JSON line. The raw
# lines go to build/bench-get/results.jsonl; bench/get/report.py turns them into the
# "## Online GETs" section of docs/benchmarks.md (unless --no-doc).
#
# --instructions also counts the user-space instructions per GET of the C clients with
# valgrind --tool=callgrind ((Ir of --count GETs - Ir of none) / --count, warm-up 0), a figure
# that does not move with machine load, unlike CPU time.
#
# CPU placement (the machine has 2 cores): the server is pinned to CPU 0 and the client to
# CPU 1 with taskset, so the client's CPU time is not inflated by sharing a core with the
# server (--no-pin turns that off). Other processes on the machine are not controlled: the
# load average is recorded with each run.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT="$ROOT/build/bench-get"
PY="${ODS_TEST_PYTHON:-$ROOT/.venv/bin/python}"
RUNS=5
COUNT=1000
WARMUP=50
INFLIGHT=8
BUILD=1
PIN=1
DOC=1
CLIENTS="ods-v4 curl-v4 pyodata4 pyodata4-seq ods-v2 curl-v2 pyodata2 pyodata2-seq"
ALT_LIB=""
INSTR=0

while [ $# -gt 0 ]; do
    case "$1" in
        --runs) RUNS=$2; shift 2 ;;
        --count) COUNT=$2; shift 2 ;;
        --warmup) WARMUP=$2; shift 2 ;;
        --inflight) INFLIGHT=$2; shift 2 ;;
        --no-build) BUILD=0; shift ;;
        --no-pin) PIN=0; shift ;;
        --no-doc) DOC=0; shift ;;
        --clients) CLIENTS=$2; shift 2 ;;
        --compare-lib) ALT_LIB=$(cd "$2" && pwd); shift 2 ;;
        --instructions) INSTR=1; shift ;;
        *) echo "run.sh: unknown argument $1" >&2; exit 64 ;;
    esac
done

cd "$ROOT"
mkdir -p "$OUT"
if [ -n "$ALT_LIB" ]; then
    [ -e "$ALT_LIB/libodatastore.so.0" ] || { echo "run.sh: no libodatastore.so.0 in $ALT_LIB" >&2; exit 64; }
    # Next to the build it is compared with, so both see the same machine load.
    case " $CLIENTS " in
        *" alt-v4 "*) ;;
        *) CLIENTS=$(echo " $CLIENTS " | sed -e 's/ ods-v4 / ods-v4 alt-v4 /' -e 's/ ods-v2 / ods-v2 alt-v2 /') ;;
    esac
fi

# --- Build --------------------------------------------------------------------------------
if [ ! -x "$PY" ]; then
    echo "== creating .venv (Tests/servers/requirements.txt)" >&2
    python3 -m venv "$ROOT/.venv"
    "$ROOT/.venv/bin/pip" install -q -r Tests/servers/requirements.txt
    PY="$ROOT/.venv/bin/python"
fi
if [ "$BUILD" = 1 ]; then
    echo "== building libodatastore (release) with CMake" >&2
    if [ ! -f build/CMakeCache.txt ]; then
        cmake -S . -B build -G Ninja >&2
    fi
    # Only the library: the CLI, examples and C tests are not needed here.
    cmake --build build --target odatastore_swift >&2
fi
LIBDIR="$ROOT/build/lib"
[ -e "$LIBDIR/libodatastore.so" ] || { echo "run.sh: $LIBDIR/libodatastore.so missing (drop --no-build)" >&2; exit 1; }
CFLAGS="-O2 -g -std=c99 -Wall -Wextra -Werror"
cc $CFLAGS -I"$ROOT/include" -o "$OUT/ods_get" bench/get/ods_get.c \
    -L"$LIBDIR" -lodatastore -lpthread -Wl,-rpath,"$LIBDIR"
cc $CFLAGS -o "$OUT/curl_get" bench/get/curl_get.c $(pkg-config --cflags --libs libcurl 2>/dev/null || echo -lcurl)

# --- Servers ------------------------------------------------------------------------------
SERVER_PIN=()
CLIENT_PIN=()
if [ "$PIN" = 1 ] && command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
    SERVER_PIN=(taskset -c 0)
    CLIENT_PIN=(taskset -c 1)
fi

SERVER_URL=""
start_server() {  # $1: v4|v2. Sets SERVER_URL; the server stops when its stdin closes.
    coproc SERVER { exec "${SERVER_PIN[@]}" "$PY" Tests/servers/serve.py "$1" 2>>"$OUT/servers.log"; }
    local line=""
    if ! read -r -t 120 line <&"${SERVER[0]}" || [[ "$line" != READY\ * ]]; then
        echo "run.sh: the $1 server did not start (see $OUT/servers.log)" >&2
        exit 1
    fi
    SERVER_URL=${line#READY }
}
stop_server() {
    local pid=$SERVER_PID
    eval "exec ${SERVER[1]}>&-"
    wait "$pid" || true
}

run_client() {  # $1: client name, $2: round. Appends one JSON line to results.jsonl.
    local client=$1 round=$2 server line load
    case "$client" in
        *-v4|pyodata4|pyodata4-seq) server=v4 ;;
        *) server=v2 ;;
    esac
    start_server "$server"
    local common=(--count "$COUNT" --warmup "$WARMUP")
    load=$(cut -d' ' -f1 /proc/loadavg)
    case "$client" in
        ods-v4|ods-v2) line=$("${CLIENT_PIN[@]}" "$OUT/ods_get" "$SERVER_URL" "${common[@]}" --inflight "$INFLIGHT") ;;
        alt-v4|alt-v2) line=$(LD_LIBRARY_PATH="$ALT_LIB" "${CLIENT_PIN[@]}" "$OUT/ods_get" "$SERVER_URL" "${common[@]}" --inflight "$INFLIGHT") ;;
        curl-v4) line=$("${CLIENT_PIN[@]}" "$OUT/curl_get" "$SERVER_URL" "${common[@]}" --inflight "$INFLIGHT") ;;
        curl-v2) line=$("${CLIENT_PIN[@]}" "$OUT/curl_get" "$SERVER_URL" --v2 "${common[@]}" --inflight "$INFLIGHT") ;;
        pyodata4) line=$("${CLIENT_PIN[@]}" "$PY" bench/get/peers.py python-odata "$SERVER_URL" "${common[@]}" --threads "$INFLIGHT") ;;
        pyodata2) line=$("${CLIENT_PIN[@]}" "$PY" bench/get/peers.py pyodata "$SERVER_URL" "${common[@]}" --threads "$INFLIGHT") ;;
        pyodata4-seq) line=$("${CLIENT_PIN[@]}" "$PY" bench/get/peers.py python-odata "$SERVER_URL" "${common[@]}" --threads 1) ;;
        pyodata2-seq) line=$("${CLIENT_PIN[@]}" "$PY" bench/get/peers.py pyodata "$SERVER_URL" "${common[@]}" --threads 1) ;;
        *) echo "run.sh: unknown client $client" >&2; exit 64 ;;
    esac
    stop_server
    echo "{\"key\":\"$client\",\"server\":\"$server\",\"round\":$round,\"pinned\":$PIN,\"loadavg\":$load,\"result\":$line}" >>"$RESULTS"
    echo "   round $round $client: $line" >&2
}

RESULTS="$OUT/results.jsonl"
: >"$RESULTS"
: >"$OUT/servers.log"
read -r -a order <<<"$CLIENTS"
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
for ((round = 1; round <= RUNS; round++)); do
    echo "== round $round/$RUNS" >&2
    if ((round % 2 == 0)); then
        for ((i = ${#order[@]} - 1; i >= 0; i--)); do run_client "${order[$i]}" "$round"; done
    else
        for c in "${order[@]}"; do run_client "$c" "$round"; done
    fi
done
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)

# --- Instruction counts (optional) ----------------------------------------------------------
INSTR_RESULTS="$OUT/instructions.jsonl"
: >"$INSTR_RESULTS"
callgrind_ir() {  # prints the total Ir of one run: callgrind_ir <out-file> <LD_LIBRARY_PATH or ""> <command...>
    local file=$1 libpath=$2; shift 2
    env ${libpath:+LD_LIBRARY_PATH="$libpath"} \
        valgrind --tool=callgrind --callgrind-out-file="$file" "$@" >/dev/null 2>"$file.log" ||
        { echo "run.sh: callgrind run failed (see $file.log)" >&2; exit 1; }
    local total
    total=$(sed -n 's/^totals: \([0-9]*\).*/\1/p' "$file")
    [ -n "$total" ] || { echo "run.sh: no instruction total in $file" >&2; exit 1; }
    echo "$total"
}
if [ "$INSTR" = 1 ]; then
    command -v valgrind >/dev/null || { echo "run.sh: --instructions needs valgrind" >&2; exit 1; }
    for client in $CLIENTS; do
        libpath=""
        case "$client" in
            ods-v4|ods-v2) cmd=("$OUT/ods_get") ;;
            alt-v4|alt-v2) cmd=("$OUT/ods_get"); libpath=$ALT_LIB ;;
            curl-v4) cmd=("$OUT/curl_get") ;;
            curl-v2) cmd=("$OUT/curl_get" --v2) ;;
            *) continue ;;  # Python under valgrind: too slow to be useful
        esac
        case "$client" in *-v4) server=v4 ;; *) server=v2 ;; esac
        start_server "$server"
        none=$(callgrind_ir "$OUT/callgrind.$client.0" "$libpath" "${cmd[@]}" "$SERVER_URL" --warmup 0 --count 0 --inflight "$INFLIGHT")
        all=$(callgrind_ir "$OUT/callgrind.$client.$COUNT" "$libpath" "${cmd[@]}" "$SERVER_URL" --warmup 0 --count "$COUNT" --inflight "$INFLIGHT")
        stop_server
        echo "{\"key\":\"$client\",\"server\":\"$server\",\"count\":$COUNT,\"ir_none\":$none,\"ir_all\":$all}" >>"$INSTR_RESULTS"
        echo "   instructions $client: $(( (all - none) / COUNT )) per GET" >&2
    done
fi

if [ "$DOC" = 1 ]; then
    python3 bench/get/report.py --results "$RESULTS" --doc docs/benchmarks.md \
        --runs "$RUNS" --count "$COUNT" --warmup "$WARMUP" --inflight "$INFLIGHT" --pinned "$PIN" \
        --load-start "$LOAD_START" --load-end "$LOAD_END" ${ALT_LIB:+--alt-lib "$ALT_LIB"} \
        --instructions "$INSTR_RESULTS"
    echo "== wrote docs/benchmarks.md (## Online GETs)" >&2
else
    python3 bench/get/report.py --results "$RESULTS" --runs "$RUNS" --count "$COUNT" --warmup "$WARMUP" \
        --inflight "$INFLIGHT" --pinned "$PIN" --load-start "$LOAD_START" --load-end "$LOAD_END" \
        ${ALT_LIB:+--alt-lib "$ALT_LIB"} --instructions "$INSTR_RESULTS"
fi
