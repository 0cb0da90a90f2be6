#!/usr/bin/env bash
# The long runs of the reliability tests (docs/reliability.md), for a machine that can spare
# the hours; scripts/test.sh runs the short forms.
#
#   bash scripts/soak.sh [TRIALS] [FUZZ_SECONDS]
#       TRIALS (default 100): the fault, retry, hardening, wait and concurrency C tests are
#           each run that many times (against fresh real servers every time);
#       then every sanitizer (scripts/sanitize.sh all);
#       then every fuzz target for FUZZ_SECONDS (default 3600: one hour each, scripts/fuzz.sh).
# Needs a configured and built build/ (scripts/test.sh does that). Prints a summary line per
# part; the exit status is non-zero when anything failed.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

trials=${1:-100}
fuzz_seconds=${2:-3600}
export ODS_TEST_ROOT="$PWD" ODS_TEST_PYTHON="$PWD/.venv/bin/python"
status=0
for t in faults retries hardening wait concurrency dispatch_queue; do
    failed=0
    for i in $(seq 1 "$trials"); do
        if ! build/tests/test_$t > "build/soak-$t.log" 2>&1; then
            failed=$((failed + 1))
            cp "build/soak-$t.log" "build/soak-$t-failure-$i.log"
        fi
    done
    echo "soak: test_$t $((trials - failed))/$trials passed"
    [ "$failed" -eq 0 ] || status=1
done
bash scripts/crash-soak.sh 10 30 || status=1
bash scripts/sanitize.sh all || status=1
bash scripts/fuzz.sh "$fuzz_seconds" || status=1
exit $status
