#!/usr/bin/env bash
# Sanitizer runs of the C tests (and the Python tests under ASan): the library built with
# `-sanitize=<kind>` (debug, its own scratch path .build-<kind>), each C test compiled with the
# Swift toolchain's clang -fsanitize=<kind> against it, run against the real test servers.
# Fails when a test fails or the sanitizer reports anything.
#
#   bash scripts/sanitize.sh [thread|address|undefined] [test_name ...]
#       thread (default): requests dispatch_queue dispatch_inline inline_hostile faults concurrency wait upload mixed logon log observers
#       address:          every C test that talks to a server, then pytest Tests/python with
#                         the ASan runtime preloaded (leak checks off for the interpreter)
#       undefined:        every C test that talks to a server (UBSan on the C side; the library is
#                         a debug build, whose Swift code checks overflow and bounds itself)
#   bash scripts/sanitize.sh all        the three, one after the other
#   bash scripts/sanitize.sh --build-only KIND|all   only the instrumented library (scripts/test.sh
#                                       builds them while the release build leaves a core idle)
#
# scripts/test.sh runs the three kinds, one step each (thread builds its own library into
# .build-tsan, address the debug one of scripts/fuzz.sh into .build-fuzz, a minute or two each;
# undefined uses the debug build of `swift build`); `bash scripts/soak.sh` runs them too.
# ODS_SANITIZE_JOBS (default 2) tests run at a time.
# Needs what scripts/test.sh sets up (.venv with the test servers' requirements).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/lib/jobs.sh
source scripts/lib/jobs.sh

build_only=0
if [ "${1:-}" = --build-only ]; then
    build_only=1
    shift
fi
kind=${1:-thread}
if [ "$kind" = all ]; then
    shift || true
    status=0
    only=()
    [ "$build_only" = 1 ] && only=(--build-only)
    for k in thread address undefined; do bash "$0" "${only[@]}" "$k" "$@" || status=1; done
    exit $status
fi
case $kind in
    thread | address | undefined) shift || true ;;
    *) kind=thread ;;  # old form: test names only
esac
tests=("$@")
all_c=(requests dispatch_queue dispatch_inline inline_hostile faults concurrency wait hardening retries values paths conventions entities
       errors online_v4 online_v2 store url_check upload download mixed logon log observers)
if [ ${#tests[@]} -eq 0 ]; then
    case $kind in
        thread) tests=(requests dispatch_queue dispatch_inline inline_hostile faults concurrency wait upload mixed logon log observers) ;;
        *) tests=("${all_c[@]}") ;;
    esac
fi
swift_bin=$(dirname "$(command -v swift)")
clang="$swift_bin/clang"
runtime="$swift_bin/../lib/swift/linux"
scratch=.build-$( [ "$kind" = thread ] && echo tsan || echo "$kind" )
# UBSan needs no instrumented library: the plain debug build of `swift build` (scripts/test.sh
# has just made it) is the one to test.
[ "$kind" = undefined ] && scratch=.build
out=build-$( [ "$kind" = thread ] && echo tsan || echo "$kind" )
mkdir -p "$out"

# Swift has no -sanitize=undefined: for that kind the library is a plain debug build, whose
# Swift code traps on overflow and out-of-bounds access by itself (Swift's own UB checks), and
# UBSan instruments the C side (the tests and their support code calling the API).
swift_flags=()
[ "$kind" = undefined ] || swift_flags=(-Xswiftc -sanitize="$kind")
# The AddressSanitizer library is the one scripts/fuzz.sh's debug build makes (.build-fuzz,
# -sanitize=fuzzer,address): the same modules serve both, compiled once (about 70 s less in
# scripts/test.sh). The fuzzer's coverage counters cost a little speed and change nothing
# else; the ASan runtime of each test (or preloaded into Python) provides their callbacks.
if [ "$kind" = address ]; then
    scratch=.build-fuzz
    swift_flags=(-Xswiftc -sanitize=fuzzer,address -Xswiftc -DODS_LIBFUZZER)
fi
swift build -c debug "${swift_flags[@]}" --product odatastore --scratch-path "$scratch"
[ "$build_only" = 1 ] && exit 0
ln -sf "$PWD/$scratch/debug/libodatastore.so" "$out/libodatastore.so.0"

export ODS_TEST_ROOT="$PWD" ODS_TEST_PYTHON="$PWD/.venv/bin/python"
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1"
export ASAN_OPTIONS="halt_on_error=1 detect_leaks=1 detect_stack_use_after_return=0"
export UBSAN_OPTIONS="halt_on_error=1 print_stacktrace=1"
case $kind in
    thread) marker="WARNING: ThreadSanitizer" ;;
    address) marker="ERROR: AddressSanitizer\|ERROR: LeakSanitizer" ;;
    undefined) marker="runtime error:" ;;
esac
# One test: compiled against the instrumented library, run, its log checked for the
# sanitizer's marker; "clean" or "FAILED" goes to $out/test_<name>.result.
one_test() {
    local t=$1
    rm -f "$out/test_$t.result"
    if ! "$clang" -fsanitize="$kind" -g -std=c99 -D_POSIX_C_SOURCE=200809L -Iinclude -ITests/c \
        "-DODS_TEST_ROOT_DEFAULT=\"$PWD\"" "-DODS_TEST_PYTHON_DEFAULT=\"$PWD/.venv/bin/python\"" \
        "Tests/c/test_$t.c" Tests/c/support/*.c \
        -L"$scratch/debug" -lodatastore -L"$runtime" -ldispatch -lBlocksRuntime -lpthread \
        -Wl,-rpath,"$PWD/$out" -Wl,-rpath,"$runtime" -o "$out/test_$t" \
        > "$out/test_$t.build.log" 2>&1; then
        # gold warns once per ASan symbol it cannot export from the instrumented library
        # (about 140 lines per test, nothing to act on): those lines are dropped.
        grep -v "warning: Cannot export local symbol '__asan" "$out/test_$t.build.log" > "$out/test_$t.log"
        echo FAILED > "$out/test_$t.result"
    elif "$out/test_$t" > "$out/test_$t.log" 2>&1 && ! grep -q "$marker" "$out/test_$t.log"; then
        echo clean > "$out/test_$t.result"
    else
        echo FAILED > "$out/test_$t.result"
    fi
}

# ODS_SANITIZE_JOBS tests at a time (default 2, as ctest in scripts/test.sh): the tests spend
# much of their time waiting for their servers, and each starts its own on free ports.
ods_parallel "${ODS_SANITIZE_JOBS:-2}" one_test "${tests[@]}"
status=0
for t in "${tests[@]}"; do
    result=$(cat "$out/test_$t.result" 2>/dev/null || echo FAILED)
    if [ "$result" = clean ]; then
        echo "$kind: test_$t clean"
    else
        echo "$kind: test_$t FAILED (see $out/test_$t.log)"
        tail -40 "$out/test_$t.log"
        status=1
    fi
done

if [ "$kind" = address ] && [ -d Tests/python ]; then
    # The interpreter is not instrumented: preload the ASan runtime the library needs, and
    # leave leak checking off (CPython keeps objects alive until exit by design).
    asan_rt=$("$clang" -print-file-name=libclang_rt.asan-x86_64.so)
    if LD_PRELOAD="$asan_rt" ASAN_OPTIONS="halt_on_error=1 detect_leaks=0" \
        ODATASTORE_LIBRARY="$PWD/$scratch/debug/libodatastore.so" \
        .venv/bin/python -m pytest Tests/python -q -n "${ODS_PYTEST_JOBS:-2}" --dist loadscope -p no:cacheprovider > "$out/pytest.log" 2>&1 &&
        ! grep -q "ERROR: AddressSanitizer" "$out/pytest.log"; then
        echo "address: pytest clean"
    else
        echo "address: pytest FAILED (see $out/pytest.log)"
        tail -40 "$out/pytest.log"
        status=1
    fi
fi
exit $status
