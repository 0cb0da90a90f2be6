#!/usr/bin/env bash
# Output check for decoder changes (not a benchmark): decodes every JSON fixture under
# Tests/Fixtures, mutated copies of them (bench/decode/mutate_fixtures.py: member orders
# changed, members dropped, duplicates, escaped keys, entities in alternating orders) and the
# decode benchmark's pages, with no model and with every $metadata fixture, V2 and V4, every
# entity set, the automatic and the download call; writes one digest line per decode.
# Run it before and after a change and diff the two files: they must be identical.
#   bench/decode/check_outputs.sh OUT.txt [extra body files...]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="$1"; shift
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
swift build -c release --package-path "$here" --product decode-check >&2
bin="$(swift build -c release --package-path "$here" --show-bin-path)/decode-check"
cd "$root"
find Tests/Fixtures -name '*.json' | LC_ALL=C sort > "$work/bodies"
python3 "$here/mutate_fixtures.py" "$work/mutated" $(cat "$work/bodies") >> "$work/bodies"
mkdir -p "$work/pages"
python3 "$here/make_pages.py" Tests/Fixtures "$work/pages" >/dev/null
ls "$work"/pages/*.json >> "$work/bodies"
for extra in "$@"; do echo "$extra" >> "$work/bodies"; done
metadata=$(find Tests/Fixtures \( -name '*.edmx' -o -name '*metadata*.xml' \) | LC_ALL=C sort)
"$bin" $metadata < "$work/bodies" | sed "s#$work/##" > "$out"
