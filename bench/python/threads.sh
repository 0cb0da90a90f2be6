#!/usr/bin/env bash
# Per-thread CPU, context switches and page faults of the Python binding's GET benchmark
# (bench/python/threads.py), against one fresh V4 test server pinned to CPU 0, the client
# on CPU 1 as in run.py:
#   bash bench/python/threads.sh [--runs N] [--count N] [--inflight N] [--compare-lib DIR] [--compare-binding DIR]
# --compare-lib DIR alternates the client on DIR/libodatastore.so with the current build,
# one JSON line each ("lib" says which); --compare-binding DIR alternates the binding in DIR
# (a bindings/python/src of another tree, e.g. from `git archive`) with this one, same
# library ("binding" says which). --inflight 1 leaves the client CPU idle between GETs
# (every answer wakes it: the quiet-machine regime, whatever the load).
# Needs build/lib/libodatastore.so (or $ODATASTORE_LIBRARY).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
PY=${ODS_TEST_PYTHON:-.venv/bin/python}
runs=3 count=3000 other= otherpy= inflight=8
while [ $# -gt 0 ]; do
    case $1 in
        --runs) runs=$2; shift 2 ;;
        --count) count=$2; shift 2 ;;
        --inflight) inflight=$2; shift 2 ;;
        --compare-lib) other=$(cd "$2" && pwd)/libodatastore.so; shift 2 ;;
        --compare-binding) otherpy=$(cd "$2" && pwd); shift 2 ;;
        *) echo "usage: $0 [--runs N] [--count N] [--inflight N] [--compare-lib DIR] [--compare-binding DIR]" >&2; exit 2 ;;
    esac
done
lib=${ODATASTORE_LIBRARY:-$PWD/build/lib/libodatastore.so}
pin0=() pin1=()
if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then pin0=(taskset -c 0) pin1=(taskset -c 1); fi
out=$(mktemp)
coproc SERVER { exec "${pin0[@]}" "$PY" Tests/servers/serve.py v4 2>/dev/null; }
trap 'kill "$SERVER_PID" 2>/dev/null || true; rm -f "$out"' EXIT
read -r ready url <&"${SERVER[0]}"
[ "$ready" = READY ] || { echo "threads.sh: the server did not start" >&2; exit 1; }
py=$PWD/bindings/python/src
# one entry per client to alternate: library|binding
clients=("$lib|$py")
[ -n "$other" ] && clients=("$other|$py" "${clients[@]}")
[ -n "$otherpy" ] && clients=("$lib|$otherpy" "${clients[@]}")
for ((run = 0; run < runs; run++)); do
    for c in "${clients[@]}"; do
        l=${c%%|*} b=${c#*|}
        ODATASTORE_LIBRARY=$l PYTHONPATH=$b "${pin1[@]}" "$PY" bench/python/threads.py "$url" --count "$count" --inflight "$inflight" >"$out"
        "$PY" -c 'import json, sys; d = json.load(open(sys.argv[1])); d["lib"] = sys.argv[2]; d["binding"] = sys.argv[3]; print(json.dumps(d))' "$out" "$l" "$b"
    done
done
