"""The platform wheel: built by bindings/python/build_wheel.sh with the library bundled,
installed into a fresh venv with --no-index --no-deps, used with no other copy of the
library in reach (no ODATASTORE_LIBRARY, no PYTHONPATH, not run from the source tree)."""
import os
import pathlib
import subprocess
import sys
import zipfile

from conftest import ROOT


def test_wheel_in_a_fresh_venv(tmp_path, v4_server):
    library = pathlib.Path(os.environ["ODATASTORE_LIBRARY"]).resolve()
    built = subprocess.run(["bash", str(ROOT / "bindings/python/build_wheel.sh"), str(library), str(tmp_path / "dist")],
                           env=dict(os.environ, PYTHON=sys.executable), capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr
    wheel = pathlib.Path(built.stdout.strip().splitlines()[-1])
    assert wheel.name.startswith("odatastore-0.2.0-py3-none-linux_")  # a platform wheel
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
    assert "odatastore/_lib/libodatastore.so.0" in names and "odatastore/py.typed" in names

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    installed = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                                "--no-index", "--no-deps", str(wheel)], capture_output=True, text=True, timeout=300)
    assert installed.returncode == 0, installed.stderr

    # Nothing may point the fresh venv at the build tree. LD_PRELOAD stays: under the
    # sanitizer run (scripts/sanitize.sh) it carries the ASan runtime the bundled .so needs,
    # and it cannot supply a libodatastore.
    env = {k: v for k, v in os.environ.items()
           if k not in ("ODATASTORE_LIBRARY", "PYTHONPATH", "LD_LIBRARY_PATH")}
    script = (
        "import odatastore, decimal\n"
        f"with odatastore.Store({v4_server.url!r}) as store:\n"
        "    one = store.read('Products(107)')\n"
        "assert one['Price'] == decimal.Decimal('998.59'), one\n"
        "print(odatastore.library_path())\n"
        "print(odatastore.__file__)\n"
    )
    run = subprocess.run([str(python), "-c", script], env=env, cwd=tmp_path, capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    lib_path, package = run.stdout.split()
    site = str(venv / "lib")
    assert lib_path.startswith(site) and lib_path.endswith("odatastore/_lib/libodatastore.so.0")
    assert package.startswith(site)
