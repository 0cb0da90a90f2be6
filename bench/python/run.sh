#!/usr/bin/env bash
# The Python binding GET benchmark (see run.py): bash bench/python/run.sh [--runs N] [--count N]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
exec "${ODS_TEST_PYTHON:-.venv/bin/python}" bench/python/run.py "$@"
