#!/usr/bin/env bash
# The test command of libodatastore:   bash scripts/test.sh
#
# On Debian 12 with the Swift toolchain and nothing else installed, it
#   1. installs the missing C libraries and tools with apt-get (sudo when not root),
#   2. creates or refreshes .venv (test servers' requirements + pytest),
#   3. builds, all at once: swift build --build-tests (debug), cmake configure + build in build/
#      (release .so with the static Swift stdlib, the CLI, the C tests) and the TSan and ASan
#      libraries (scripts/sanitize.sh --build-only); then swift test and the Swift examples
#      (examples/swift) against the V4 test service
#   4. ctest: C tests, header compile tests, export check, memcheck, consumer (install) test,
#      then the C tests under TSan, ASan (with pytest) and UBSan, and 10 s of fuzzing per target
#   5. pytest Tests/python -n 2 --dist loadscope with ODATASTORE_LIBRARY=<the built .so>
#      (when Tests/python exists)
# The summary gives each step's wall time and the CPU time of its processes (two cores busy
# all along is twice the wall time).
# Every step runs even when an earlier one failed (a step whose input failed is skipped); a
# summary closes the output and the exit status is non-zero when any step failed. A ctest test
# that fails is run once more alone: the summary names it either way ("FLAKY, failed once and
# passed alone: NAME" is a defect to fix, not a pass to ignore).
#
# Environment knobs:
#   ODS_BUILD_DIR            CMake build directory (default: build)
#   ODS_CTEST_JOBS           parallel ctest jobs (default: 2)
#   ODS_PYTEST_JOBS          pytest worker processes (pytest-xdist -n; default: 2)
#   ODS_SANITIZE_JOBS        sanitizer C tests run at a time (default: 2; scripts/sanitize.sh)
#   ODS_FUZZ_JOBS            fuzz targets run at a time (default: the CPUs; scripts/fuzz.sh)
#   ODS_STRICT_EXPORT_CHECK  ON/OFF: passed to CMake when set (see README.md)
#   ODS_SKIP_SETUP=1         do not touch system packages or .venv
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
# shellcheck source=scripts/lib/setup.sh
source scripts/lib/setup.sh

build_dir=${ODS_BUILD_DIR:-build}
ctest_jobs=${ODS_CTEST_JOBS:-2}
pytest_jobs=${ODS_PYTEST_JOBS:-2}
started=$(date +%s)

names=()
results=()
times=()
cpus=()
notes=()

# CPU seconds (user + system) of this shell's finished children so far, from /proc: with the
# wall time it tells a step that keeps both cores busy (a build) from one that mostly waits.
clock_ticks=$(getconf CLK_TCK 2>/dev/null || echo 100)
children_cpu() {
    local stat
    read -r -a stat < /proc/$$/stat 2>/dev/null || { echo 0; return; }
    echo $(((stat[15] + stat[16]) / clock_ticks))
}

record() { # name result seconds note [cpu seconds]
    names+=("$1")
    results+=("$2")
    times+=("$3")
    notes+=("${4:-}")
    cpus+=("${5:-0}")
}

# run_step <name> <command...>: runs the command, records PASS/FAIL; returns its status.
run_step() {
    local name=$1 t0 c0 rc
    shift
    ods_say "$name"
    t0=$(date +%s)
    c0=$(children_cpu)
    "$@"
    rc=$?
    if [ $rc -eq 0 ]; then
        record "$name" PASS $(($(date +%s) - t0)) "" $(($(children_cpu) - c0))
    else
        record "$name" FAIL $(($(date +%s) - t0)) "exit status $rc" $(($(children_cpu) - c0))
    fi
    return $rc
}

skip_step() { # name reason
    ods_say "$1: skipped ($2)"
    record "$1" SKIP 0 "$2"
}

summary() {
    local i failed=() total=$(($(date +%s) - started))
    printf '\n==================== test.sh summary ====================\n'
    printf '  %-5s %-28s %6s %8s\n' "" "step" "wall" "cpu"
    for i in "${!names[@]}"; do
        printf '  %-5s %-28s %5ss %7ss  %s\n' "${results[$i]}" "${names[$i]}" "${times[$i]}" "${cpus[$i]}" "${notes[$i]}"
        [ "${results[$i]}" = FAIL ] && failed+=("${names[$i]}")
    done
    if [ ${#failed[@]} -eq 0 ]; then
        printf 'test.sh: all steps passed in %dm%02ds\n' $((total / 60)) $((total % 60))
        return 0
    fi
    printf 'test.sh: FAILED (%s) in %dm%02ds\n' "$(IFS=,; echo "${failed[*]}")" $((total / 60)) $((total % 60))
    return 1
}

# --- 1, 2: set-up ----------------------------------------------------------------------
if [ "${ODS_SKIP_SETUP:-0}" = 1 ]; then
    skip_step "system packages" "ODS_SKIP_SETUP=1"
    skip_step "python venv" "ODS_SKIP_SETUP=1"
else
    if ! run_step "system packages" ods_ensure_system_packages; then
        echo "error: cannot install the build dependencies; nothing else can run" >&2
        summary
        exit 1
    fi
    run_step "python venv" ods_ensure_venv
fi

# --- 3: the builds ---------------------------------------------------------------------------
# Four compilations, at once: the debug build with the tests (this step's output), the release
# library, CLI and C tests (CMake, in build/), and the ThreadSanitizer and AddressSanitizer
# libraries of step 4b (.build-tsan, .build-fuzz). The release build is whole-module optimized,
# one compiler process at a time for most of its four minutes: alone, it leaves a core idle.
# No test starts before all of them have finished (a test must not share the CPUs with a
# compiler: its time limits count the wait). The background builds' output follows this step's.
cmake_args=()
[ -n "${ODS_STRICT_EXPORT_CHECK:-}" ] && cmake_args+=("-DODS_STRICT_EXPORT_CHECK=$ODS_STRICT_EXPORT_CHECK")
bg_names=()
bg_pids=()
bg_dirs=()
bg_start() { # name command...: runs it in the background, its output, times and status kept
    local name=$1 dir
    shift
    dir=$(mktemp -d)
    date +%s > "$dir/start"
    (
        "$@"
        rc=$?
        date +%s > "$dir/end"
        times > "$dir/times"  # this subshell's children: user and system time
        exit $rc
    ) > "$dir/log" 2>&1 &
    bg_names+=("$name")
    bg_pids+=($!)
    bg_dirs+=("$dir")
}
# bg_finish <index>: waits for it, shows its output (the end of it when it passed) and records
# it (its CPU seconds the last of cpus).
bg_finish() {
    local i=$1 rc dir=${bg_dirs[$1]} cpu
    wait "${bg_pids[$i]}"
    rc=$?
    ods_say "${bg_names[$i]} (beside swift build)"
    cpu=$(tail -n 1 "$dir/times" 2>/dev/null | awk '{
        n = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); n += a[1] * 60 + a[2] } printf "%d", n }')
    cpu=${cpu:-0}
    local wall=$(($(cat "$dir/end" 2>/dev/null || date +%s) - $(cat "$dir/start")))
    if [ "$rc" = 0 ]; then
        tail -n 3 "$dir/log"
        record "${bg_names[$i]}" PASS "$wall" "beside swift build" "$cpu"
    else
        cat "$dir/log"
        record "${bg_names[$i]}" FAIL "$wall" "beside swift build; exit status $rc" "$cpu"
    fi
    rm -rf "$dir"
    return $rc
}
builds_c0=$(children_cpu)
bg_start "cmake build (release)" ods_cmake_build "$build_dir" "${cmake_args[@]}"
bg_start "sanitizer builds" bash -c 'bash scripts/sanitize.sh --build-only thread && bash scripts/sanitize.sh --build-only address'
debug_ok=0
run_step "swift build (debug)" swift build --build-tests && debug_ok=1
debug_index=$((${#names[@]} - 1))
release_ok=0
bg_finish 0 && release_ok=1
bg_cpu=${cpus[${#cpus[@]} - 1]}
bg_finish 1
bg_cpu=$((bg_cpu + cpus[${#cpus[@]} - 1]))
# The background subshells' CPU reaches this shell's count when they end, in whichever step
# ran then: the debug build's figure is the whole of the builds' less theirs.
cpus[debug_index]=$(($(children_cpu) - builds_c0 - bg_cpu))

# --- 3b: Swift unit tests (debug) ------------------------------------------------------------
if [ "$debug_ok" = 1 ]; then
    run_step "swift test" swift test --skip-build
    run_step "swift examples" .venv/bin/python Tests/examples/test_swift_examples.py "$(swift build --show-bin-path)"
else
    skip_step "swift test" "swift build failed"
    skip_step "swift examples" "swift build failed"
fi

# --- 4: ctest ----------------------------------------------------------------------------------
if [ "$release_ok" = 1 ]; then
    run_ctest() {
        ctest --test-dir "$build_dir" --output-on-failure --parallel "$ctest_jobs" && return 0
        # A test that failed is run once more, alone, so one failure on a loaded machine is told
        # apart from a broken test; either way the summary names it (CI may keep only the end of
        # the output) and the first failure's output stays above.
        local failed_log="$build_dir/Testing/Temporary/LastTestsFailed.log" names
        [ -f "$failed_log" ] || return 1
        names=$(cut -d: -f2 "$failed_log" | paste -sd, -)
        ods_say "ctest: $names failed; running them again"
        if ctest --test-dir "$build_dir" --output-on-failure --rerun-failed; then
            ctest_note="FLAKY, failed once and passed alone: $names"
            return 0
        fi
        ctest_note="failed: $names; failed again alone: $(cut -d: -f2 "$failed_log" | paste -sd, -)"
        return 1
    }
    ctest_note=""
    run_step "ctest" run_ctest
    [ -n "$ctest_note" ] && notes[${#notes[@]}-1]+="${notes[${#notes[@]}-1]:+; }$ctest_note"
    cmake_ok=1
else
    skip_step "ctest" "cmake build failed"
    cmake_ok=0
fi

# --- 4b: sanitizers and a short fuzz run (docs/reliability.md) --------------------------------
if [ "$cmake_ok" = 1 ]; then
    run_step "tsan (C tests)" bash scripts/sanitize.sh thread
    run_step "asan (C tests, pytest)" bash scripts/sanitize.sh address
    run_step "ubsan (C tests)" bash scripts/sanitize.sh undefined
else
    skip_step "tsan (C tests)" "cmake build failed"
    skip_step "asan (C tests, pytest)" "cmake build failed"
    skip_step "ubsan (C tests)" "cmake build failed"
fi
run_step "fuzz (10 s per target)" env ODS_FUZZ_CONFIGURATION=debug bash scripts/fuzz.sh 10

# --- 5: Python tests -------------------------------------------------------------------------
run_pytest() {
    local rc pythonpath=""
    [ -d bindings/python/src ] && pythonpath="$PWD/bindings/python/src"
    ODATASTORE_LIBRARY="$PWD/$build_dir/lib/libodatastore.so" \
    ODS_TEST_ROOT="$PWD" ODS_TEST_PYTHON="$PWD/.venv/bin/python" \
    PYTHONPATH="${pythonpath}${PYTHONPATH:+:$PYTHONPATH}" \
        .venv/bin/python -m pytest Tests/python -q -n "$pytest_jobs" --dist loadscope
    rc=$?
    if [ $rc -eq 5 ]; then
        echo "pytest: no tests collected in Tests/python"
        return 0
    fi
    return $rc
}
if [ ! -d Tests/python ]; then
    skip_step "pytest" "no Tests/python yet"
elif [ "$cmake_ok" != 1 ]; then
    skip_step "pytest" "no library built"
elif [ ! -x .venv/bin/python ] || ! .venv/bin/python -c 'import pytest' >/dev/null 2>&1; then
    record "pytest" FAIL 0 ".venv has no pytest (see the python venv step)"
else
    run_step "pytest" run_pytest
fi

summary
