#!/usr/bin/env bash
# bench/localwrite/run.sh - the local-write benchmark of issue 8 ("Speed"), in one command.
#
#   bash bench/localwrite/run.sh [--rounds N] [--count N] [--instructions] [--no-build] [--no-pin] [--no-doc]
#
# 1. Builds the release library and CLI (CMake, as shipped) and the two C programs.
# 2. Makes the template store: a V4 test server and `odatastore offline init --define
#    Products` (300 products); the server is stopped: the writes are offline.
# 3. --rounds rounds (default 5), order alternating, each program pinned to CPU 1, each on a
#    fresh copy of the template:
#      ods     bench/localwrite/ods_localwrite.c: --count (default 10,000) single-entity
#              creates through the C API (ods_store_schedule ODS_CREATE "Products"), one at
#              a time, each acknowledged when durable
#      sqlite  bench/localwrite/sqlite_localwrite.c: the same inserts with raw sqlite3 in C
#              into the store's own products table of a copy of the same file, one
#              transaction each, with the store's durability (WAL, synchronous=FULL)
#      rows    the same program with --rows store: every row the library writes for a
#              create (entity, membership, local key, queued change), one transaction each
#    Before the rounds, 100 creates by the library and 100 by `--rows store` are compared
#    (check.py): the same rows, apart from the queue's time stamps and random ids.
# 4. With --instructions, each program once more under valgrind callgrind with 200 and with
#    1,200 creates: the difference over 1,000 is its instructions per create (opening and
#    closing cancel out). Independent of machine load.
# Raw results: build/bench-localwrite/results.jsonl (and instructions.jsonl); bench/localwrite/report.py writes the
# "## Offline store: local writes" section of docs/benchmarks.md (unless --no-doc).
set -euo pipefail
ARGS="$*"

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT="$ROOT/build/bench-localwrite"
PY="${ODS_TEST_PYTHON:-$ROOT/.venv/bin/python}"
ROUNDS=5
COUNT=10000
INSTRUCTIONS=0
BUILD=1
PIN=1
DOC=1

while [ $# -gt 0 ]; do
    case "$1" in
        --rounds) ROUNDS=$2; shift 2 ;;
        --count) COUNT=$2; shift 2 ;;
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
    echo "== building libodatastore and the CLI (release) with CMake" >&2
    [ -f build/CMakeCache.txt ] || cmake -S . -B build -G Ninja -DODS_TEST_PYTHON="$PY" >&2
    cmake --build build --target odatastore_swift odatastore_cli >&2
fi
LIBDIR="$ROOT/build/lib"
CLI="$ROOT/build/bin/odatastore"
[ -x "$CLI" ] && [ -e "$LIBDIR/libodatastore.so" ] || { echo "run.sh: build/bin/odatastore or build/lib missing (drop --no-build)" >&2; exit 1; }
CFLAGS="-O2 -g -std=c99 -Wall -Wextra -Werror"
cc $CFLAGS -I"$ROOT/include" -o "$OUT/ods_localwrite" bench/localwrite/ods_localwrite.c \
    -L"$LIBDIR" -lodatastore -lpthread -Wl,-rpath,"$LIBDIR"
cc $CFLAGS -o "$OUT/sqlite_localwrite" bench/localwrite/sqlite_localwrite.c $(pkg-config --cflags --libs sqlite3 2>/dev/null || echo -lsqlite3)

PIN_SERVER=()
PIN_CLIENT=()
if [ "$PIN" = 1 ] && command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
    PIN_SERVER=(taskset -c 0)
    PIN_CLIENT=(taskset -c 1)
fi

# --- The template store ---------------------------------------------------------------------
TEMPLATE="$OUT/template.store"
rm -f "$TEMPLATE" "$TEMPLATE-wal" "$TEMPLATE-shm"
coproc SERVER { exec "${PIN_SERVER[@]}" "$PY" Tests/servers/serve.py v4 2>"$OUT/server.log"; }
line=""
if ! read -r -t 120 line <&"${SERVER[0]}" || [[ "$line" != READY\ * ]]; then
    echo "run.sh: the v4 server did not start (see $OUT/server.log)" >&2
    exit 1
fi
SERVICE=${line#READY }
server_pid=$SERVER_PID
"$CLI" offline init --service "$SERVICE" --store "$TEMPLATE" --define Products --quiet >"$OUT/init.json"
eval "exec ${SERVER[1]}>&-"
wait "$server_pid" || true
TEMPLATE_BYTES=$(stat -c %s "$TEMPLATE")

# --- Rounds ---------------------------------------------------------------------------------
RESULTS="$OUT/results.jsonl"
: >"$RESULTS"
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)

# --- Same rows ------------------------------------------------------------------------------
for p in ods rows; do
    rm -f "$OUT/check-$p.store"*
    cp "$TEMPLATE" "$OUT/check-$p.store"
done
"$OUT/ods_localwrite" "$OUT/check-ods.store" --service "$SERVICE" --count 100 >/dev/null
"$OUT/sqlite_localwrite" "$OUT/check-rows.store" --count 100 --rows store >/dev/null
if "$PY" bench/localwrite/check.py "$OUT/check-ods.store" "$OUT/check-rows.store" >&2; then SAME=1; else SAME=0; fi

order=(ods sqlite rows)
run_one() {  # $1: program, $2: round
    local program=$1 round=$2 line load
    rm -f "$OUT/run.store" "$OUT/run.store-wal" "$OUT/run.store-shm"
    cp "$TEMPLATE" "$OUT/run.store"
    load=$(cut -d' ' -f1 /proc/loadavg)
    case "$program" in
        ods) line=$("${PIN_CLIENT[@]}" "$OUT/ods_localwrite" "$OUT/run.store" --service "$SERVICE" --count "$COUNT") ;;
        sqlite) line=$("${PIN_CLIENT[@]}" "$OUT/sqlite_localwrite" "$OUT/run.store" --count "$COUNT") ;;
        rows) line=$("${PIN_CLIENT[@]}" "$OUT/sqlite_localwrite" "$OUT/run.store" --count "$COUNT" --rows store) ;;
    esac
    echo "{\"key\":\"$program\",\"round\":$round,\"loadavg\":$load,\"result\":$line}" >>"$RESULTS"
    echo "   round $round $program: $line" >&2
}
for ((round = 1; round <= ROUNDS; round++)); do
    if ((round % 2 == 0)); then
        for ((i = ${#order[@]} - 1; i >= 0; i--)); do run_one "${order[$i]}" "$round"; done
    else
        for p in "${order[@]}"; do run_one "$p" "$round"; done
    fi
done
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)

# --- Instructions ---------------------------------------------------------------------------
INSTR="$OUT/instructions.jsonl"
rm -f "$INSTR"
if [ "$INSTRUCTIONS" = 1 ]; then
    command -v valgrind >/dev/null || { echo "run.sh: --instructions needs valgrind" >&2; exit 1; }
    for program in ods sqlite rows; do
        ir=()
        for n in 200 1200; do
            rm -f "$OUT/run.store" "$OUT/run.store-wal" "$OUT/run.store-shm" "$OUT/callgrind.out"
            cp "$TEMPLATE" "$OUT/run.store"
            case "$program" in
                ods) cmd=("$OUT/ods_localwrite" "$OUT/run.store" --service "$SERVICE" --count "$n") ;;
                sqlite) cmd=("$OUT/sqlite_localwrite" "$OUT/run.store" --count "$n") ;;
                rows) cmd=("$OUT/sqlite_localwrite" "$OUT/run.store" --count "$n" --rows store) ;;
            esac
            valgrind --tool=callgrind --callgrind-out-file="$OUT/callgrind.out" "${cmd[@]}" >/dev/null 2>"$OUT/callgrind.log"
            ir+=("$(grep -E '^summary:' "$OUT/callgrind.out" | awk '{print $2}')")
        done
        echo "{\"key\":\"$program\",\"ir_200\":${ir[0]},\"ir_1200\":${ir[1]}}" >>"$INSTR"
        echo "   instructions $program: $(( (ir[1] - ir[0]) / 1000 )) per create" >&2
    done
fi

REPORT=("$PY" bench/localwrite/report.py --command "bash bench/localwrite/run.sh${ARGS:+ $ARGS}" --results "$RESULTS" --rounds "$ROUNDS" --count "$COUNT"
        --template-bytes "$TEMPLATE_BYTES" --same "$SAME" --load-start "$LOAD_START" --load-end "$LOAD_END" --pinned "$PIN")
[ -s "$INSTR" ] && REPORT+=(--instructions "$INSTR")
if [ "$DOC" = 1 ]; then
    "${REPORT[@]}" --doc docs/benchmarks.md
    echo "== wrote docs/benchmarks.md (## Offline store: local writes)" >&2
else
    "${REPORT[@]}"
fi
[ "$SAME" = 1 ]
