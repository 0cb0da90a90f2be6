#!/usr/bin/env bash
# Crash trials of the offline store at length (docs/reliability.md, "Crash trials"): the
# CLI killed with SIGKILL at random moments during local writes and during uploads, through
# the fault proxy (slowed requests, answers lost after the service acted), then every
# acknowledged change checked on the service (exactly once, or in the error archive) and the
# file checked with PRAGMA integrity_check. The ctest `cli.sync` runs a few of these.
#
#   bash scripts/crash-soak.sh [ROUNDS] [TRIALS]
#       ROUNDS (default 5) runs of Tests/cli/test_cli_sync.py, each with its own seed and
#       TRIALS (default 30): 3*TRIALS killed-or-finished writes and up to 4*TRIALS upload
#       attempts per round.
# Needs build/bin/odatastore (scripts/test.sh builds it) and the test venv. Prints each
# round's summary and the totals; the exit status is non-zero when any check failed.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

rounds=${1:-5}
trials=${2:-30}
binary=build/bin/odatastore
[ -x "$binary" ] || { echo "crash-soak: build first (bash scripts/test.sh)" >&2; exit 66; }
status=0
writes=0 killed_writes=0 upload_kills=0 uncertain=0
for r in $(seq 1 "$rounds"); do
    seed=$((RANDOM * 32768 + RANDOM))
    out=$(.venv/bin/python Tests/cli/test_cli_sync.py "$binary" --trials "$trials" --seed "$seed" 2>&1)
    rc=$?
    echo "$out" | grep -E "^(FAIL|crash trials)" | sed "s/^/round $r: /"
    [ $rc -eq 0 ] || { status=1; echo "$out" > "build/crash-soak-failure-$seed.log"; }
    w=$(echo "$out" | sed -n 's/^crash trials, local writes: \([0-9]*\) acknowledged, \([0-9]*\) killed.*/\1 \2/p')
    u=$(echo "$out" | sed -n 's/^crash trials, uploads: \([0-9]*\) kills, [0-9]* creates on the service, \([0-9]*\) archived.*/\1 \2/p')
    set -- $w; writes=$((writes + ${1:-0} + ${2:-0})); killed_writes=$((killed_writes + ${2:-0}))
    set -- $u; upload_kills=$((upload_kills + ${1:-0})); uncertain=$((uncertain + ${2:-0}))
done
echo "crash-soak: $rounds rounds; local writes: $writes trials, $killed_writes killed; uploads: $upload_kills killed; $uncertain creates archived as uncertain; $([ $status -eq 0 ] && echo 'every check passed' || echo 'FAILURES (build/crash-soak-failure-*.log)')"
exit $status
