"""The binding's type hints: mypy --strict on the package (py.typed) and on the examples,
which use the public API as an application would."""
import os
import subprocess
import sys

import pytest

from conftest import BINDING_SRC, ROOT


def test_mypy_strict():
    try:
        import mypy  # noqa: F401  (pinned in scripts/requirements-dev.txt)
    except ImportError:
        pytest.fail("mypy is not installed: .venv/bin/pip install -r scripts/requirements-dev.txt")
    cache = ROOT / "build" / "mypy-cache"
    env = dict(os.environ, MYPYPATH=str(BINDING_SRC))
    result = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(cache),
                             "--python-version", "3.9", str(BINDING_SRC / "odatastore"),
                             *sorted(str(p) for p in (ROOT / "examples" / "python").glob("*.py"))],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Success: no issues found" in result.stdout
