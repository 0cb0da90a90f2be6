#!/usr/bin/env bash
# Regenerates man/ (the odatastore command's man pages, one per subcommand) from the
# command's own --help texts with swift-argument-parser's generate-manual plugin.
#
#   bash scripts/man.sh
#
# The plugin builds the package in release mode first (several minutes the first time), so
# the pages are kept in the repository and regenerated when a command's help changes;
# ctest `man` checks that every subcommand has a page and that each page's summary is the
# command's current one. `cmake --install` puts them in share/man/man1.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
swift package --allow-writing-to-directory "$out" generate-manual --multi-page --output-directory "$out"
rm -f man/*.1
mkdir -p man
cp "$out"/*.1 man/
ls man
