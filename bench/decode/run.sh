#!/usr/bin/env bash
# Decoding benchmark: builds bench/decode in release, times the Swift decoders and CPython's
# json.loads / xml.etree on the same bytes in the same run, and rewrites the "Decoding"
# section of docs/benchmarks.md. Usage: bench/decode/run.sh [iterations]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
fixtures="$root/Tests/Fixtures"
iterations="${1:-30}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

swift build -c release --package-path "$here" >&2
bin="$(swift build -c release --package-path "$here" --show-bin-path)/decode-bench"
python3 "$here/make_pages.py" "$fixtures" "$work"

o2="$fixtures/apache/olingo-odata2/odata2-lib/odata-core/src/test/resources"
o4="$fixtures/apache/olingo-odata4/lib/client-core/src/test/resources/org/apache/olingo/client/core"
cases=(
  "v4-trippin-people|4|application/json|$work/v4-trippin-people.json|$o4/metadata_TripInService.xml|People|json"
  "v2-employees-json|2|application/json|$work/v2-employees.json|$o2/refScenario.edmx|Employees|json"
  "v2-atom-LargeEmployeeFeed|2|application/atom+xml|$o2/LargeEmployeeFeed.xml|$o2/refScenario.edmx|Employees|xml"
)
: > "$work/results.jsonl"
for c in "${cases[@]}"; do
  IFS='|' read -r name version ct body meta set kind <<< "$c"
  swift_line="$("$bin" "$name" "$version" "$ct" "$body" "$meta" "$set" "$iterations")"
  py_line="$(python3 "$here/python_baseline.py" "$name" "$body" "$kind" "$iterations")"
  echo "$swift_line" >> "$work/results.jsonl"
  echo "$py_line" >> "$work/results.jsonl"
done
python3 "$here/report.py" "$work/results.jsonl" "$root/docs/benchmarks.md" "$iterations"
cat "$work/results.jsonl" >&2
