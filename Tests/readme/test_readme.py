#!/usr/bin/env python3
"""ctest "readme": every C program in README.md is built and run against the real V4 test
service, and what it prints is checked, so the README shows what the library does.

    test_readme.py --cc CC --include DIR --libdir DIR --python VENV_PYTHON

Each ```c block that has a main() is compiled with -std=c99 -Wall -Wextra -Werror -pedantic
against the built library and run with the service root as its argument.
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "Tests", "servers"))
import seed  # noqa: E402


def expected_outputs() -> list[list[str]]:
    """What each program prints, from the seed's formulas (Tests/servers/README.md)."""
    products = [seed.product(i) for i in range(1, 301)]
    synchronous = [f"{p['Name']} costs {p['Price']}" for p in products if p["Price"] > 990]
    in_category_2 = [p["Name"] for p in products if (p["ID"] - 1) % 10 + 1 == 2][:3]
    return [synchronous, in_category_2]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cc", required=True)
    parser.add_argument("--include", required=True)
    parser.add_argument("--libdir", required=True)
    parser.add_argument("--python", required=True)
    args = parser.parse_args()

    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        blocks = [b for b in re.findall(r"```c\n(.*?)```", f.read(), flags=re.S) if "int main" in b]
    expected = expected_outputs()
    if len(blocks) != len(expected):
        print(f"FAIL: README.md has {len(blocks)} C programs, the test knows {len(expected)}")
        return 1

    server = subprocess.Popen([args.python, os.path.join(ROOT, "Tests", "servers", "serve.py"), "v4"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        ready = server.stdout.readline().split()
        if len(ready) != 2 or ready[0] != "READY":
            print(f"FAIL: the V4 server did not start: {ready!r}")
            return 1
        url = ready[1]
        failures = 0
        with tempfile.TemporaryDirectory() as tmp:
            for n, (source, want) in enumerate(zip(blocks, expected), 1):
                c = os.path.join(tmp, f"readme{n}.c")
                exe = os.path.join(tmp, f"readme{n}")
                with open(c, "w", encoding="utf-8") as f:
                    f.write(source)
                build = subprocess.run([args.cc, "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic",
                                        "-I", args.include, c, "-L", args.libdir, "-lodatastore",
                                        f"-Wl,-rpath,{args.libdir}", "-o", exe], capture_output=True, text=True)
                if build.returncode != 0:
                    print(f"FAIL: README program {n} does not compile:\n{build.stderr}")
                    failures += 1
                    continue
                run = subprocess.run([exe, url], capture_output=True, text=True, timeout=120)
                got = run.stdout.splitlines()
                if run.returncode != 0 or got != want:
                    print(f"FAIL: README program {n}: exit {run.returncode}\n  printed {got!r}\n  expected {want!r}\n"
                          f"  stderr {run.stderr!r}")
                    failures += 1
                else:
                    print(f"README program {n}: ok ({len(got)} lines)")
        return 1 if failures else 0
    finally:
        server.stdin.close()
        server.wait(timeout=30)


if __name__ == "__main__":
    sys.exit(main())
