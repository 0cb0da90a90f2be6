#!/usr/bin/env bash
# The demo of libodatastore:   bash scripts/demo.sh
#
# Installs what it needs (as scripts/test.sh does), builds the library and examples/demo.c
# with CMake in build/, starts the demo service (the OData V4 test server,
# Tests/servers/serve.py v4, on 127.0.0.1), runs the demo program against it and stops
# the server.
#
# Environment: ODS_BUILD_DIR (default build), ODS_SKIP_SETUP=1 (do not install anything).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/lib/setup.sh
source scripts/lib/setup.sh

build_dir=${ODS_BUILD_DIR:-build}

if [ "${ODS_SKIP_SETUP:-0}" != 1 ]; then
    ods_say "system packages"
    ods_ensure_system_packages
    ods_say "python venv"
    ods_ensure_venv
fi

ods_say "build (CMake, release library)"
ods_cmake_build "$build_dir"
demo="$build_dir/examples/demo"
[ -x "$demo" ] || { echo "error: $demo was not built" >&2; exit 1; }

if [ ! -f Tests/servers/serve.py ]; then
    ods_warn "Tests/servers/serve.py is not in this checkout: running the demo without a service"
    ods_say "run $demo"
    "$demo"
    exit $?
fi

ods_say "start the demo service (Tests/servers/serve.py v4)"
# The server's contract: first stdout line "READY <url>"; it exits when stdin closes.
coproc SERVER { exec .venv/bin/python -u Tests/servers/serve.py v4; }
server_pid=$SERVER_PID
server_in=${SERVER[1]}
server_out=${SERVER[0]}
stop_server() {
    if [ -n "${server_pid:-}" ]; then
        exec {server_in}>&- 2>/dev/null || true
        sleep 0.5
        kill -TERM "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
        server_pid=
    fi
}
trap stop_server EXIT

url=
while IFS= read -r -t 60 line <&"$server_out"; do
    case $line in
        "READY "*) url=${line#READY }; break ;;
        *) echo "[serve.py] $line" ;;
    esac
done
if [ -z "$url" ]; then
    echo "error: the demo service did not report READY within 60 s" >&2
    exit 1
fi
echo "demo service at $url"
# Keep the server's stdout drained so it can never block on a full pipe.
# (bash closes coprocess descriptors in subshells: hand cat a copy.)
exec {server_log}<&"$server_out"
cat <&"$server_log" | sed 's/^/[serve.py] /' >&2 &

ods_say "run $demo $url"
status=0
"$demo" "$url" || status=$?

ods_say "stop the demo service"
stop_server
if [ $status -eq 0 ]; then echo "demo: done"; else echo "demo: failed (exit status $status)"; fi
exit $status
