#!/usr/bin/env bash
# Regenerates man/ (the odatastore command's man pages, one per subcommand) from the
# command's own declarations (Sources/odatastore-cli/Arguments/ManPages.swift), with its
# hidden `odatastore --generate-man-pages DIR`.
#
#   bash scripts/man.sh [path/to/odatastore]
#
# Without a path it builds the command (`swift build --product odatastore-cli`, debug) and
# uses that. The pages are kept in the repository and regenerated when a command's help
# changes; ctest `man` checks that every subcommand has a page and that each page's summary
# is the command's current one. `cmake --install` puts them in share/man/man1.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ $# -ge 1 ]; then
    tool=$1
else
    swift build --product odatastore-cli
    tool="$(swift build --show-bin-path)/odatastore-cli"
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$tool" --generate-man-pages "$out"
rm -f man/*.1
mkdir -p man
cp "$out"/*.1 man/
ls man
