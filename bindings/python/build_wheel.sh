#!/usr/bin/env bash
# Builds the platform wheel of the Python binding with libodatastore bundled in it:
#
#   bash bindings/python/build_wheel.sh [LIBRARY] [OUT_DIR]
#
# LIBRARY  the shipped (static Swift stdlib) library; default build/lib/libodatastore.so.0
#          (run `cmake -S . -B build -G Ninja && cmake --build build` first)
# OUT_DIR  where the .whl goes; default bindings/python/dist
# PYTHON   the interpreter to build with (needs setuptools >= 70.1; default .venv/bin/python)
#
# The package is copied to a temporary directory with the library as
# odatastore/_lib/libodatastore.so.0, and built there with `pip wheel --no-build-isolation
# --no-index` (nothing downloaded, the source tree stays clean). Prints the wheel's path.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
lib=${1:-$root/build/lib/libodatastore.so.0}
out=${2:-$here/dist}
python=${PYTHON:-$root/.venv/bin/python}

if [ ! -f "$lib" ]; then
    echo "build_wheel.sh: $lib not found: build the library first (cmake --build build)" >&2
    exit 1
fi
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
cp -R "$here/pyproject.toml" "$here/setup.py" "$here/README.md" "$here/src" "$stage/"
find "$stage/src" -name __pycache__ -prune -exec rm -rf {} +
mkdir -p "$stage/src/odatastore/_lib"
cp -L "$lib" "$stage/src/odatastore/_lib/libodatastore.so.0"
mkdir -p "$out"
"$python" -m pip wheel --quiet --disable-pip-version-check --no-deps --no-build-isolation --no-index \
    -w "$stage/wheel" "$stage" >&2
wheel=$(ls "$stage"/wheel/odatastore-*.whl)
cp "$wheel" "$out/"
echo "$out/$(basename "$wheel")"
