#!/usr/bin/env bash
# Regenerates cmake/hot-functions.txt, the order in which the release link lays out the
# library's hot functions (bench/layout/README.md):   bash bench/layout/order.sh
# Profiles the release library in build/lib with valgrind callgrind on the workloads of the
# benchmarks: the Python binding's online GETs against the V4 and V2 test servers
# (bench/python/instructions.sh: 1,000 GETs minus none) and the first download of 10,000
# products from each (bench/download/instructions.sh), then merges them (order.py). Takes
# about five minutes; instruction counts do not depend on the machine's load. Rebuild
# (cmake --build build) to link with the new order.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
PY=${ODS_TEST_PYTHON:-.venv/bin/python}
LIB=${ODATASTORE_LIBRARY:-$PWD/build/lib/libodatastore.so}
OUT=build/bench-layout
mkdir -p "$OUT"
export ODATASTORE_LIBRARY=$LIB
for kind in v4 v2; do
    bash bench/python/instructions.sh --server "$kind" --count 1000 >&2
    cp "build/bench-python/callgrind.get.$kind.1000" "build/bench-python/callgrind.get.$kind.0" "$OUT/"
done
bash bench/download/instructions.sh --lib "$(dirname "$LIB")" --keep "$OUT/callgrind.download.v4" >/dev/null
bash bench/download/instructions.sh --lib "$(dirname "$LIB")" --v2 --keep "$OUT/callgrind.download.v2" >/dev/null
"$PY" bench/layout/order.py cmake/hot-functions.txt "$(readlink -f "$LIB")" \
    "$OUT/callgrind.get.v4.1000:$OUT/callgrind.get.v4.0" \
    "$OUT/callgrind.get.v2.1000:$OUT/callgrind.get.v2.0" \
    "$OUT/callgrind.download.v4" "$OUT/callgrind.download.v2"
