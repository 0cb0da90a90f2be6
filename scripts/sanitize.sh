#!/usr/bin/env bash
# ThreadSanitizer run of the C tests that exercise threads: the library built with
# `-sanitize=thread` (debug, its own scratch path .build-tsan), each test compiled with the
# Swift toolchain's clang -fsanitize=thread against it, run against the real test servers.
# Fails when a test fails or TSan reports anything.
#
#   bash scripts/sanitize.sh [test_name ...]     (default: requests dispatch_queue faults concurrency wait)
#
# Needs what scripts/test.sh sets up (.venv with the test servers' requirements).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=(requests dispatch_queue faults concurrency wait)
swift_bin=$(dirname "$(command -v swift)")
clang="$swift_bin/clang"
runtime="$swift_bin/../lib/swift/linux"
out=build-tsan
mkdir -p "$out"

swift build -c debug -Xswiftc -sanitize=thread --product odatastore --scratch-path .build-tsan
ln -sf "$PWD/.build-tsan/debug/libodatastore.so" "$out/libodatastore.so.0"

export ODS_TEST_ROOT="$PWD" ODS_TEST_PYTHON="$PWD/.venv/bin/python"
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1"
status=0
for t in "${tests[@]}"; do
    "$clang" -fsanitize=thread -g -std=c99 -D_POSIX_C_SOURCE=200809L -Iinclude -ITests/c \
        "-DODS_TEST_ROOT_DEFAULT=\"$PWD\"" "-DODS_TEST_PYTHON_DEFAULT=\"$PWD/.venv/bin/python\"" \
        "Tests/c/test_$t.c" Tests/c/support/*.c \
        -L.build-tsan/debug -lodatastore -L"$runtime" -ldispatch -lBlocksRuntime -lpthread \
        -Wl,-rpath,"$PWD/$out" -Wl,-rpath,"$runtime" -o "$out/test_$t"
    if "$out/test_$t" > "$out/test_$t.log" 2>&1 && ! grep -q "WARNING: ThreadSanitizer" "$out/test_$t.log"; then
        echo "tsan: test_$t clean"
    else
        echo "tsan: test_$t FAILED (see $out/test_$t.log)"
        tail -40 "$out/test_$t.log"
        status=1
    fi
done
exit $status
