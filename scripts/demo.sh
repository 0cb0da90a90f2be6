#!/usr/bin/env bash
# The demo of libodatastore:   bash scripts/demo.sh [--v4 | --tour]
#
# Installs what it needs (as scripts/test.sh does), builds the library and the examples with
# CMake in build/, and runs examples/flight_demo.c. That program starts SAP's flight sample
# service RMTSAMPLEFLIGHT on 127.0.0.1 (OData V2 on pyslet: Tests/servers/serve.py
# v2flight) and walks through online reads, an offline store filled by defining requests,
# reads from the store file with the service stopped, the store reopened without network,
# local changes, their upload with a conflict in the error archive, a download, and a mixed
# store routing between the file and the service.
#
#   --v4    the same story on the V4 edition of the flight model (odatapy: serve.py v4flight)
#   --tour  instead, examples/demo.c: a tour of the request API (handles, delegates, ETags,
#           create/update/delete, a function import) on the V4 test service (serve.py v4)
#
# Environment: ODS_BUILD_DIR (default build), ODS_SKIP_SETUP=1 (install nothing),
# ODS_SKIP_BUILD=1 (use the build as it is; the test suite runs the demo this way),
# ODS_DEMO_STORE (the store file; default $ODS_BUILD_DIR/demo/flights-v2.store, -v4 with --v4),
# ODS_TEST_PYTHON (the Python of the services; default .venv/bin/python).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/lib/setup.sh
source scripts/lib/setup.sh

story=v2
case "${1:-}" in
    "") ;;
    --v4) story=v4 ;;
    --tour) story=tour ;;
    -h|--help) sed -n '2,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "usage: bash scripts/demo.sh [--v4 | --tour]" >&2; exit 64 ;;
esac

build_dir=${ODS_BUILD_DIR:-build}

if [ "${ODS_SKIP_SETUP:-0}" != 1 ]; then
    ods_say "system packages"
    ods_ensure_system_packages
    ods_say "python venv"
    ods_ensure_venv
fi

if [ "${ODS_SKIP_BUILD:-0}" != 1 ]; then
    ods_say "build (CMake, release library)"
    ods_cmake_build "$build_dir"
fi

python=${ODS_TEST_PYTHON:-$PWD/.venv/bin/python}
[ -x "$python" ] || { echo "error: no $python: run without ODS_SKIP_SETUP=1 to create it" >&2; exit 1; }

if [ "$story" = tour ]; then
    demo="$build_dir/examples/demo"
    [ -x "$demo" ] || { echo "error: $demo was not built" >&2; exit 1; }
    ods_say "start the V4 test service (Tests/servers/serve.py v4)"
    # The server's contract: first stdout line "READY <url>"; it exits when stdin closes.
    coproc SERVER { exec "$python" -u Tests/servers/serve.py v4; }
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
    [ -n "$url" ] || { echo "error: the V4 test service did not report READY within 60 s" >&2; exit 1; }
    ods_say "run $demo $url"
    status=0
    "$demo" "$url" || status=$?
    stop_server
    exit $status
fi

demo="$build_dir/examples/flight_demo"
[ -x "$demo" ] || { echo "error: $demo was not built" >&2; exit 1; }
store=${ODS_DEMO_STORE:-$build_dir/demo/flights-$story.store}
mkdir -p "$(dirname "$store")"

# The flight demo starts the service itself (it stops it half-way through the story). Pages
# of 20 entities, so the download has several pages to show.
ods_say "run $demo ($story)"
status=0
"$demo" --store "$store" -- "$python" -u Tests/servers/serve.py "${story}flight" --page-size 20 || status=$?
if [ $status -eq 0 ]; then
    echo
    echo "The store file stays for you to look at, e.g.:"
    echo "  $build_dir/bin/odatastore offline status --store $store"
    echo "  $build_dir/bin/odatastore get \"FlightCollection?\\\$select=carrid,connid,fldate,PRICE&\\\$top=3\" --store $store --mode offline --output table"
fi
exit $status
