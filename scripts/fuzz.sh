#!/usr/bin/env bash
# libFuzzer runs of the parsers and decoders (issue 10): every target of
# Sources/ODataFuzzTargets, built with -sanitize=fuzzer,address into .build-fuzz, seeded from
# the real fixtures in Tests/Fixtures and the regression inputs in Tests/fuzz/regressions.
#
#   bash scripts/fuzz.sh [SECONDS] [TARGET...]    SECONDS per target (default 10: the short run
#                                                 of scripts/test.sh); targets default to all:
#                                                 url csdl json4 json2 atom batch http split
#   bash scripts/fuzz.sh 3600                     the long run (one hour each; docs/fuzzing.md)
#
# A crash, a leak, a timeout (10 s for one input; ODS_FUZZ_TIMEOUT=SECONDS raises it for runs
# at idle priority on a busy machine, where libFuzzer's wall-clock alarm would otherwise fire
# on a starved process) or an input that needs more than 2 GB fails
# the run; libFuzzer writes the input to .build-fuzz/artifacts/<target>/, and it belongs in
# Tests/fuzz/regressions/<target>/ once fixed (the Swift tests replay that directory).
# ODS_FUZZ_JOBS (default: the number of CPUs) targets run at a time. The debug build shares
# .build-fuzz with scripts/sanitize.sh address (same flags, so the modules compile once).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/lib/jobs.sh
source scripts/lib/jobs.sh

seconds=${1:-10}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(url csdl json4 json2 atom batch http split)
# ODS_FUZZ_CONFIGURATION=debug builds faster and runs slower (scripts/test.sh's short run);
# the long runs use release.
configuration=${ODS_FUZZ_CONFIGURATION:-release}
out=.build-fuzz
bin=$out/$configuration/odatastore-fuzz

swift build -c "$configuration" --scratch-path "$out" --product odatastore-fuzz \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -DODS_LIBFUZZER

# Seeds: real documents of each kind (copied, so libFuzzer's additions stay in .build-fuzz).
seed() { # target, files...
    local t=$1 dir="$out/corpus/$1"
    shift
    mkdir -p "$dir"
    for f in "$@"; do [ -f "$f" ] && cp -f "$f" "$dir/seed-$(printf '%s' "$f" | md5sum | cut -c1-12)"; done
    if [ -d "Tests/fuzz/regressions/$t" ]; then cp -f Tests/fuzz/regressions/"$t"/* "$dir/" 2>/dev/null || true; fi
}
mapfile -t json < <(find Tests/Fixtures -name '*.json' | sort)
mapfile -t xml < <(find Tests/Fixtures \( -name '*.xml' -o -name '*.edmx' -o -name '*.csdl' \) | sort)
mapfile -t batch < <(find Tests/Fixtures \( -name '*.batch' -o -path '*BatchRequests*' \) -type f | sort)
seed json4 "${json[@]}"
seed json2 "${json[@]}"
seed split "${json[@]}"
seed csdl "${xml[@]}" $(grep -l '"\$Version"' "${json[@]}" 2>/dev/null || true)
seed atom $(grep -l -e '<feed' -e '<entry' -e '<m:error' "${xml[@]}" 2>/dev/null || true) Tests/servers/v2_metadata.xml
seed batch "${batch[@]}"
mkdir -p "$out/corpus/url" "$out/corpus/http"
i=0
while IFS= read -r line; do
    [ -n "$line" ] && printf '%s' "$line" > "$out/corpus/url/seed-$i" && i=$((i + 1))
done < <(grep -ho '"[A-Za-z(][^"]*[?(][^"]*"' Tests/cli/test_cli.py | tr -d '"' | sort -u)
i=0
for f in "${json[@]:0:20}"; do
    { printf 'HTTP/1.1 200 OK\r\nContent-Type: application/json;odata.metadata=minimal\r\nETag: W/"1"\r\nX-CSRF-Token: t\r\n\r\n'; cat "$f"; } \
        > "$out/corpus/http/seed-$i"
    i=$((i + 1))
done
printf 'HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\n\r\n{"error":{"code":"E","message":"no"}}' > "$out/corpus/http/seed-404"
printf 'HTTP/1.1 302 Found\r\nLocation: http://h/login\r\n\r\n' > "$out/corpus/http/seed-302"

# One target: libFuzzer for $seconds on its corpus; "clean" or "FAILED" goes to
# $out/<target>.result, its output to $out/<target>.log.
fuzz_one() {
    local t=$1
    rm -f "$out/$t.result"
    echo "fuzz: $t for ${seconds}s"
    mkdir -p "$out/artifacts/$t"
    if ODS_FUZZ_TARGET=$t ASAN_OPTIONS=detect_leaks=1 "$bin" "$out/corpus/$t" \
        -max_total_time="$seconds" -rss_limit_mb=2048 -timeout="${ODS_FUZZ_TIMEOUT:-10}" -max_len=262144 \
        -artifact_prefix="$out/artifacts/$t/" -print_final_stats=1 > "$out/$t.log" 2>&1; then
        echo clean > "$out/$t.result"
    else
        echo FAILED > "$out/$t.result"
    fi
}

# ODS_FUZZ_JOBS targets at a time (default: one per CPU; libFuzzer runs on one thread).
ods_parallel "${ODS_FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}" fuzz_one "${targets[@]}"
status=0
for t in "${targets[@]}"; do
    if [ "$(cat "$out/$t.result" 2>/dev/null)" = clean ]; then
        echo "fuzz: $t clean ($(grep -o 'stat::number_of_executed_units: *[0-9]*' "$out/$t.log" | grep -o '[0-9]*$') runs)"
    else
        echo "fuzz: $t FAILED (see $out/$t.log and $out/artifacts/$t/)"
        tail -30 "$out/$t.log"
        status=1
    fi
done
exit $status
