#!/usr/bin/env bash
# bench/download/instructions.sh - instructions per entity of the library's first download
# (valgrind callgrind), the figure "Where the download's time goes" in docs/benchmarks.md uses.
#
#   bash bench/download/instructions.sh [--v2] [--cli] [--products N] [--server-page N]
#                                       [--lib DIR] [--keep FILE] [--top N]
#
# Starts Tests/servers/serve.py v4 (or, with --v2, v2: pyslet, as run.sh's V2 rounds) with
# --products N (default 10000) over N/1000 categories and a server page size of N (one page;
# --server-page N for another, e.g. run.sh's V2 page of 5000), builds
# bench/download/ods_download.c against the release library in build/lib (or --lib DIR: another
# build, e.g. a baseline tree's), and runs it under `valgrind --tool=callgrind` downloading
# `Products` with --page-size N into a new store. With --cli it runs the command-line tool
# instead, as run.sh does: `odatastore offline init --define Products --page-size N --quiet`
# from the bin directory beside the library's (build/bin, or DIR/../bin with --lib; the tool
# links the library statically). Prints the total instructions of the process divided by N,
# then the inclusive cost per entity of the download's main parts (callgrind_annotate
# --inclusive=yes), and with --top N the N most costly functions (inclusive). Does not move
# with the machine's load, unlike CPU times. --keep FILE keeps the callgrind output.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PY="${ODS_TEST_PYTHON:-$ROOT/.venv/bin/python}"
PRODUCTS=10000
SERVER_PAGE=""
VERSION=v4
CLI=0
TOP=0
LIBDIR="$ROOT/build/lib"
KEEP=""
while [ $# -gt 0 ]; do
    case "$1" in
        --v2) VERSION=v2; shift ;;
        --cli) CLI=1; shift ;;
        --top) TOP=$2; shift 2 ;;
        --server-page) SERVER_PAGE=$2; shift 2 ;;
        --products) PRODUCTS=$2; shift 2 ;;
        --lib) LIBDIR=$(cd "$2" && pwd); shift 2 ;;
        --keep) KEEP=$2; shift 2 ;;
        *) echo "instructions.sh: unknown argument $1" >&2; exit 64 ;;
    esac
done
SERVER_PAGE=${SERVER_PAGE:-$PRODUCTS}
CLIBIN="$(dirname "$LIBDIR")/bin/odatastore"
[ "$CLI" = 0 ] || [ -x "$CLIBIN" ] || { echo "instructions.sh: no $CLIBIN (cmake --build build --target odatastore_cli)" >&2; exit 1; }
[ -e "$LIBDIR/libodatastore.so" ] || { echo "instructions.sh: no libodatastore.so in $LIBDIR (cmake --build build --target odatastore_swift)" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "instructions.sh: valgrind is not installed" >&2; exit 1; }

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cc -O2 -g -std=c99 -Wall -Wextra -Werror -I"$ROOT/include" -o "$WORK/ods_download" "$ROOT/bench/download/ods_download.c" \
    -L"$LIBDIR" -lodatastore -lpthread -Wl,-rpath,"$LIBDIR"

CATEGORIES=$(( PRODUCTS / 1000 > 0 ? PRODUCTS / 1000 : 1 ))
coproc SERVER { exec "$PY" "$ROOT/Tests/servers/serve.py" "$VERSION" --products "$PRODUCTS" --categories "$CATEGORIES" --page-size "$SERVER_PAGE" 2>"$WORK/server.log"; }
line=""
if ! read -r -t 600 line <&"${SERVER[0]}" || [[ "$line" != READY\ * ]]; then
    echo "instructions.sh: the server did not start:" >&2; cat "$WORK/server.log" >&2; exit 1
fi
URL=${line#READY }

OUTFILE="$WORK/callgrind.out"
if [ "$CLI" = 1 ]; then
    CLIENT=("$CLIBIN" offline init --service "$URL" --store "$WORK/store" --define Products --page-size "$PRODUCTS" --quiet)
else
    CLIENT=("$WORK/ods_download" "$URL" --store "$WORK/store" --page-size "$PRODUCTS" --expect "$PRODUCTS")
fi
LD_LIBRARY_PATH="$LIBDIR" valgrind --tool=callgrind --callgrind-out-file="$OUTFILE" \
    "${CLIENT[@]}" >"$WORK/result.json" 2>"$WORK/valgrind.log" ||
    { cat "$WORK/valgrind.log" >&2; exit 1; }
if [ "$CLI" = 1 ]; then  # the CLI prints the store's status: the download must be complete
    "$PY" -c 'import json,sys; r=json.load(open(sys.argv[1]))["definingRequests"][0]; sys.exit(0 if r["complete"] and r["entities"]==int(sys.argv[2]) else 1)' \
        "$WORK/result.json" "$PRODUCTS" || { echo "instructions.sh: the CLI did not download $PRODUCTS entities:" >&2; cat "$WORK/result.json" >&2; exit 1; }
fi
eval "exec ${SERVER[1]}>&-"
wait "$SERVER_PID" 2>/dev/null || true
[ -n "$KEEP" ] && cp "$OUTFILE" "$KEEP"

DEMANGLE=(cat)
command -v swift >/dev/null && DEMANGLE=(swift demangle --simplified)
callgrind_annotate --inclusive=yes --threshold=100 "$OUTFILE" 2>/dev/null | "${DEMANGLE[@]}" >"$WORK/annotate.txt"
echo "$VERSION, $([ "$CLI" = 1 ] && echo "odatastore offline init" || echo ods_download), $PRODUCTS products, server page $SERVER_PAGE"
"$PY" - "$WORK/annotate.txt" "$PRODUCTS" "$TOP" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
n = int(sys.argv[2])
top = int(sys.argv[3])
total = None
for line in text.splitlines():
    m = re.match(r"\s*([\d,]+) \(100.0%\)\s+PROGRAM TOTALS", line)
    if m:
        total = int(m.group(1).replace(",", ""))
print(f"total: {total / n:,.0f} instructions per entity ({total:,} for {n:,} entities)")
parts = [
    ("EntityWriter.writePage", "EntityWriter.writePage"),
    ("  SQLiteStatement.step (all statements)", "SQLiteStatement.step()"),
    ("  EntityWriter.flushPending (upserts in batches of rows)", "EntityWriter.flushPending"),
    ("  EntityWriter.upsert (one row)", "EntityWriter.upsert"),
    ("  EntityWriter.recordMembership", "EntityWriter.recordMembership"),
    ("PayloadDecoder.decode", "PayloadDecoder.decode("),
]
for label, needle in parts:
    best = 0
    for line in text.splitlines():
        m = re.match(r"\s*([\d,]+) \(\s*[\d.]+%\)\s+(\S.*)$", line)
        if m and needle in m.group(2) and "closure" not in m.group(2) and "thunk" not in m.group(2):
            best = max(best, int(m.group(1).replace(",", "")))
    if best:
        print(f"{label}: {best / n:,.0f} per entity (inclusive)")
if top:
    print(f"the {top} most costly functions, inclusive, per entity:")
    shown = 0
    for line in text.splitlines():
        m = re.match(r"\s*([\d,]+) \(\s*([\d.]+)%\)\s+(\S.*)$", line)
        if m and "PROGRAM TOTALS" not in line:
            print(f"  {int(m.group(1).replace(',', '')) / n:10,.0f}  {m.group(2):>5}%  {m.group(3)[:150]}")
            shown += 1
            if shown == top:
                break
EOF
