#!/usr/bin/env bash
# bench/localread/run.sh - the local-read benchmark of issue 7 ("Speed and size"), in one command.
#
#   bash bench/localread/run.sh [--rounds N] [--count N] [--warmup N] [--products N]
#                               [--no-build] [--no-pin] [--no-doc] [--reuse-store]
#
# 1. Builds the release library and CLI (CMake, as shipped) and the two C programs.
# 2. Makes the store: a V4 test server with --products 100000 spread over 100 categories
#    (Tests/servers/serve.py; 1,000 products per category), and
#    `odatastore offline init --define Products --define Categories --page-size 10000`.
#    The server is stopped before any read: the reads are offline. (--reuse-store keeps the
#    store of an earlier run, build/bench-localread/products.store, when it is there.)
# 3. Checks that both programs answer the same thing: the JSON text of one read by the library
#    (ods_localread --dump) and by the hand-written baseline (sqlite_localread --dump) must be
#    the same bytes (1,000 entities).
# 4. --rounds rounds (default 5), order alternating, each program pinned to CPU 1:
#      ods        bench/localread/ods_localread.c: the read through the C API, one at a time
#                 (`Products?$filter=CategoryID eq 7` once the store evaluates $filter locally,
#                 until then `Categories(7)/Products`: the JSON line and the report say which)
#      sqlite     bench/localread/sqlite_localread.c: the same query hand-written against
#                 sqlite3 in C on the same file, building the same JSON text
#      columns    the same, reading every column of every row and building nothing (a floor)
#    Each: --warmup reads (default 20), then --count timed reads (default 200), CPU time
#    (getrusage, user + sys) and wall time over the timed reads.
# Raw results: build/bench-localread/results.jsonl; bench/localread/report.py writes the
# "## Offline store: local read" section of docs/benchmarks.md (unless --no-doc).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT="$ROOT/build/bench-localread"
PY="${ODS_TEST_PYTHON:-$ROOT/.venv/bin/python}"
ROUNDS=5
COUNT=200
WARMUP=20
PRODUCTS=100000
BUILD=1
PIN=1
DOC=1
REUSE=0

while [ $# -gt 0 ]; do
    case "$1" in
        --rounds) ROUNDS=$2; shift 2 ;;
        --count) COUNT=$2; shift 2 ;;
        --warmup) WARMUP=$2; shift 2 ;;
        --products) PRODUCTS=$2; shift 2 ;;
        --no-build) BUILD=0; shift ;;
        --no-pin) PIN=0; shift ;;
        --no-doc) DOC=0; shift ;;
        --reuse-store) REUSE=1; shift ;;
        *) echo "run.sh: unknown argument $1" >&2; exit 64 ;;
    esac
done
CATEGORIES=$(( PRODUCTS / 1000 > 0 ? PRODUCTS / 1000 : 1 ))
EXPECT=$(( PRODUCTS / CATEGORIES ))

cd "$ROOT"
mkdir -p "$OUT"
if [ ! -x "$PY" ]; then
    echo "== creating .venv (Tests/servers/requirements.txt)" >&2
    python3 -m venv "$ROOT/.venv"
    "$ROOT/.venv/bin/pip" install -q -r Tests/servers/requirements.txt
    PY="$ROOT/.venv/bin/python"
fi
if [ "$BUILD" = 1 ]; then
    echo "== building libodatastore and the CLI (release) with CMake" >&2
    [ -f build/CMakeCache.txt ] || cmake -S . -B build -G Ninja -DODS_TEST_PYTHON="$PY" >&2
    cmake --build build --target odatastore_swift odatastore_cli >&2
fi
LIBDIR="$ROOT/build/lib"
CLI="$ROOT/build/bin/odatastore"
[ -x "$CLI" ] && [ -e "$LIBDIR/libodatastore.so" ] || { echo "run.sh: build/bin/odatastore or build/lib missing (drop --no-build)" >&2; exit 1; }
CFLAGS="-O2 -g -std=c99 -Wall -Wextra -Werror"
cc $CFLAGS -I"$ROOT/include" -o "$OUT/ods_localread" bench/localread/ods_localread.c \
    -L"$LIBDIR" -lodatastore -lpthread -Wl,-rpath,"$LIBDIR"
cc $CFLAGS -o "$OUT/sqlite_localread" bench/localread/sqlite_localread.c $(pkg-config --cflags --libs sqlite3 2>/dev/null || echo -lsqlite3)

PIN_SERVER=()
PIN_CLIENT=()
if [ "$PIN" = 1 ] && command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
    PIN_SERVER=(taskset -c 0)
    PIN_CLIENT=(taskset -c 1)
fi

# --- The store ------------------------------------------------------------------------------
STORE="$OUT/products.store"
SERVICE_FILE="$OUT/products.store.service"
if [ "$REUSE" = 1 ] && [ -f "$STORE" ] && [ -f "$SERVICE_FILE" ]; then
    SERVICE=$(cat "$SERVICE_FILE")
    echo "== reusing $STORE (made from $SERVICE)" >&2
else
    rm -f "$STORE" "$STORE-wal" "$STORE-shm"
    echo "== making the store: $PRODUCTS products over $CATEGORIES categories" >&2
    coproc SERVER { exec "${PIN_SERVER[@]}" "$PY" Tests/servers/serve.py v4 --products "$PRODUCTS" --categories "$CATEGORIES" --page-size 10000 2>"$OUT/server.log"; }
    line=""
    if ! read -r -t 600 line <&"${SERVER[0]}" || [[ "$line" != READY\ * ]]; then
        echo "run.sh: the v4 server did not start (see $OUT/server.log)" >&2
        exit 1
    fi
    SERVICE=${line#READY }
    server_pid=$SERVER_PID
    "$CLI" offline init --service "$SERVICE" --store "$STORE" --define Products --define Categories --page-size 10000 --quiet >"$OUT/init.json"
    eval "exec ${SERVER[1]}>&-"
    wait "$server_pid" || true
    echo "$SERVICE" >"$SERVICE_FILE"
fi
STORE_BYTES=$(stat -c %s "$STORE")

# --- Same answer ----------------------------------------------------------------------------
"${PIN_CLIENT[@]}" "$OUT/ods_localread" "$STORE" --service "$SERVICE" --expect "$EXPECT" --count 1 --warmup 1 --dump "$OUT/ods.json" >"$OUT/check-ods.json"
"${PIN_CLIENT[@]}" "$OUT/sqlite_localread" "$STORE" --expect "$EXPECT" --count 1 --warmup 0 --dump "$OUT/sqlite.json" >/dev/null
if cmp -s "$OUT/ods.json" "$OUT/sqlite.json"; then
    SAME=1
    echo "== same answer: the library's and the baseline's JSON are the same $(stat -c %s "$OUT/ods.json") bytes" >&2
else
    SAME=0
    echo "run.sh: the library's JSON ($OUT/ods.json) and the baseline's ($OUT/sqlite.json) differ:" >&2
    cmp "$OUT/ods.json" "$OUT/sqlite.json" >&2 || true
fi

# --- Rounds ---------------------------------------------------------------------------------
RESULTS="$OUT/results.jsonl"
: >"$RESULTS"
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
order=(ods sqlite columns)
run_one() {  # $1: client, $2: round
    local client=$1 round=$2 line load
    load=$(cut -d' ' -f1 /proc/loadavg)
    case "$client" in
        ods) line=$("${PIN_CLIENT[@]}" "$OUT/ods_localread" "$STORE" --service "$SERVICE" --expect "$EXPECT" --count "$COUNT" --warmup "$WARMUP") ;;
        sqlite) line=$("${PIN_CLIENT[@]}" "$OUT/sqlite_localread" "$STORE" --expect "$EXPECT" --count "$COUNT" --warmup "$WARMUP") ;;
        columns) line=$("${PIN_CLIENT[@]}" "$OUT/sqlite_localread" "$STORE" --expect "$EXPECT" --count "$COUNT" --warmup "$WARMUP" --mode columns) ;;
    esac
    echo "{\"key\":\"$client\",\"round\":$round,\"loadavg\":$load,\"result\":$line}" >>"$RESULTS"
    echo "   round $round $client: $line" >&2
}
for ((round = 1; round <= ROUNDS; round++)); do
    if ((round % 2 == 0)); then
        for ((i = ${#order[@]} - 1; i >= 0; i--)); do run_one "${order[$i]}" "$round"; done
    else
        for c in "${order[@]}"; do run_one "$c" "$round"; done
    fi
done
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)

REPORT=("$PY" bench/localread/report.py --results "$RESULTS" --rounds "$ROUNDS" --count "$COUNT" --warmup "$WARMUP"
        --products "$PRODUCTS" --categories "$CATEGORIES" --store-bytes "$STORE_BYTES" --same "$SAME"
        --load-start "$LOAD_START" --load-end "$LOAD_END" --pinned "$PIN")
if [ "$DOC" = 1 ]; then
    "${REPORT[@]}" --doc docs/benchmarks.md
    echo "== wrote docs/benchmarks.md (## Offline store: local read)" >&2
else
    "${REPORT[@]}"
fi
[ "$SAME" = 1 ]
