#!/usr/bin/env bash
# User-space instructions per GET of the binding's benchmark client (bench/python/get.py),
# independent of machine load: valgrind callgrind, (Ir of --count GETs - Ir of none) / --count,
# warm-up 0, against a fresh V4 test server (Tests/servers/serve.py v4).
#   bash bench/python/instructions.sh [--count N] [--server v4|v2]
# Needs valgrind and the library (build/lib/libodatastore.so or $ODATASTORE_LIBRARY);
# ODS_BINDING=DIR measures the binding in DIR (another tree's bindings/python/src) instead.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
COUNT=1000
KIND=v4
while [ $# -gt 0 ]; do
    case "$1" in
        --count) COUNT=$2; shift 2 ;;
        --server) KIND=$2; shift 2 ;;
        *) echo "usage: $0 [--count N] [--server v4|v2]" >&2; exit 2 ;;
    esac
done
PY=${ODS_TEST_PYTHON:-.venv/bin/python}
export ODATASTORE_LIBRARY=${ODATASTORE_LIBRARY:-$PWD/build/lib/libodatastore.so}
export PYTHONPATH=${ODS_BINDING:-$PWD/bindings/python/src}
OUT=build/bench-python
mkdir -p "$OUT"
coproc SERVER { exec "$PY" Tests/servers/serve.py "$KIND"; }
trap 'kill "$SERVER_PID" 2>/dev/null || true' EXIT
read -r ready url <&"${SERVER[0]}"
[ "$ready" = READY ] || { echo "instructions.sh: the $KIND server did not start" >&2; exit 1; }
ir() {  # total Ir of one run of get.py with $1 GETs
    local file="$OUT/callgrind.get.$KIND.$1"
    valgrind --tool=callgrind --callgrind-out-file="$file" "$PY" bench/python/get.py "$url" \
        --warmup 0 --count "$1" >/dev/null 2>"$file.log" || { echo "callgrind failed: $file.log" >&2; exit 1; }
    sed -n 's/^totals: \([0-9]*\).*/\1/p' "$file"
}
none=$(ir 0)
all=$(ir "$COUNT")
echo "{\"client\": \"odatastore (Python)\", \"server\": \"$KIND\", \"count\": $COUNT, \"ir_none\": $none, \"ir_all\": $all, \"ir_per_get\": $(( (all - none) / COUNT ))}"
