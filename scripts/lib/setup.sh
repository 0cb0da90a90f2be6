# shellcheck shell=bash
# Shared set-up of scripts/test.sh and scripts/demo.sh (sourced, not run).
#
#   ods_ensure_system_packages   C libraries and tools from Debian, installed with apt-get
#                                only when missing (sudo when not root, non-interactive)
#   ods_ensure_venv              .venv with the test servers' requirements (+ pytest)
#   ods_cmake_build <build dir>  configure (Ninja, release .so) and build
#
# Both expect to run from the repository root.

if [ -t 1 ]; then
    ods_say() { printf '\n\033[1m==> %s\033[0m\n' "$*"; }
else
    ods_say() { printf '\n==> %s\n' "$*"; }
fi
ods_warn() { printf 'warning: %s\n' "$*" >&2; }

# Debian packages the build and the tests need, by what they provide.
ODS_APT_PACKAGES=(libcurl4-openssl-dev libsqlite3-dev libxml2-dev cmake ninja-build pkg-config valgrind)

ods_have_deb() {
    dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

ods_ensure_system_packages() {
    local missing=() p
    if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
        ods_warn "not a Debian system: install libcurl, libsqlite3 and libxml2 (with headers), cmake, ninja, pkg-config and python3-venv yourself"
        return 0
    fi
    for p in "${ODS_APT_PACKAGES[@]}"; do
        ods_have_deb "$p" || missing+=("$p")
    done
    if ! command -v python3 >/dev/null 2>&1; then
        missing+=(python3 python3-venv)
    elif ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
        missing+=(python3-venv)
    fi
    # A C and a C++ compiler for the C tests (the Swift toolchain's clang also works, but
    # CMake looks for cc/c++ first).
    command -v cc >/dev/null 2>&1 || command -v gcc >/dev/null 2>&1 || missing+=(gcc)
    command -v c++ >/dev/null 2>&1 || command -v g++ >/dev/null 2>&1 || missing+=(g++)
    command -v readelf >/dev/null 2>&1 && command -v nm >/dev/null 2>&1 || missing+=(binutils)

    if [ ${#missing[@]} -eq 0 ]; then
        echo "system packages: all present"
        return 0
    fi
    local sudo=()
    if [ "$(id -u)" -ne 0 ]; then
        if ! command -v sudo >/dev/null 2>&1; then
            echo "error: missing packages (${missing[*]}) and not root, and sudo is not available" >&2
            return 1
        fi
        if [ -t 0 ]; then sudo=(sudo); else sudo=(sudo -n); fi
    fi
    echo "installing: ${missing[*]}"
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 update -q &&
        "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -q --no-install-recommends "${missing[@]}"
}

# .venv: created with `python3 -m venv` when missing or broken; requirements installed when
# they changed since the last run (a hash of the files is kept in .venv/.ods-requirements).
ods_ensure_venv() {
    local files=() f stamp=".venv/.ods-requirements" want
    if [ ! -x .venv/bin/python ] || ! .venv/bin/python -c 'import sys' >/dev/null 2>&1; then
        rm -rf .venv
        echo "creating .venv with $(command -v python3) ($(python3 --version 2>&1))"
        python3 -m venv .venv || return 1
    fi
    for f in Tests/servers/requirements.txt scripts/requirements-dev.txt; do
        [ -f "$f" ] && files+=("$f")
    done
    if [ ! -f Tests/servers/requirements.txt ]; then
        ods_warn "Tests/servers/requirements.txt does not exist yet: the venv has no test servers"
    fi
    want=$(cat "${files[@]}" | sha256sum | cut -d' ' -f1)
    if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
        echo ".venv: requirements up to date (${files[*]})"
        return 0
    fi
    local args=()
    for f in "${files[@]}"; do args+=(-r "$f"); done
    echo "installing into .venv: ${files[*]}"
    .venv/bin/python -m pip install --quiet --disable-pip-version-check "${args[@]}" || return 1
    echo "$want" >"$stamp"
}

# Configures (once) and builds the CMake tree: the release .so, the CLI, the C tests.
ods_cmake_build() {
    local dir=$1
    shift
    if [ ! -f "$dir/CMakeCache.txt" ]; then
        cmake -S . -B "$dir" -G Ninja -DODS_TEST_PYTHON="$PWD/.venv/bin/python" "$@" || return 1
    elif [ $# -gt 0 ]; then
        cmake "$dir" "$@" || return 1
    fi
    cmake --build "$dir"
}
