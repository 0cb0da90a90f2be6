#!/usr/bin/env python3
"""Merges callgrind profiles into the hot-function order the release link uses
(cmake/hot-functions.txt; see bench/layout/README.md):

    order.py OUT LIBRARY PROFILE[:BASELINE] ...

Each PROFILE is a callgrind output file of one workload; BASELINE, when given, is the same
workload run with no work (0 GETs), whose cost is subtracted, so that start-up code ($metadata,
store opening) does not count. A function's heat in a workload is its self cost (instructions)
in the library (any libodatastore.so the profile ran) divided by the library's total there; its score is its highest heat over
the workloads. Functions scoring at least MIN_SHARE (1e-6) are written hottest first, one linker
input section per line (`.text.<symbol>`: the sections `-function-sections` makes), the
symbol taken from LIBRARY's symbol table (callgrind shows C++ names demangled).
"""
from __future__ import annotations

import collections
import re
import subprocess
import sys

MIN_SHARE = 1e-6  # of a workload's instructions in the library: what runs in its steady state
LINE = re.compile(r"\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(.*)\s\[([^\]]*)\]$")


def self_costs(profile: str) -> collections.Counter:
    text = subprocess.run(["callgrind_annotate", "--inclusive=no", "--threshold=100", profile],
                          capture_output=True, text=True, check=True).stdout
    costs: collections.Counter = collections.Counter()
    for line in text.splitlines():
        m = LINE.match(line.rstrip())
        if not m or not m.group(3).rsplit("/", 1)[-1].startswith("libodatastore.so"):
            continue
        where = m.group(2)
        name = where.split(":", 1)[1] if ":" in where else where
        costs[re.sub(r"'\d+$", "", name)] += int(m.group(1).replace(",", ""))  # 'N: a recursion copy
    return costs


def symbols(library: str) -> tuple[set[str], dict[str, str]]:
    """The library's function symbols, and their demangled C++ names -> symbol."""
    def nm(*flags: str) -> list[str]:
        return subprocess.run(["nm", "--defined-only", *flags, library], capture_output=True, text=True,
                              check=True).stdout.splitlines()
    names: set[str] = set()
    demangled: dict[str, str] = {}
    for raw, pretty in zip(nm(), nm("-C")):
        r, p = raw.split(" ", 2), pretty.split(" ", 2)
        if len(r) == 3 and len(p) == 3 and r[1] in "tTwW":
            names.add(r[2])
            demangled.setdefault(p[2], r[2])
    return names, demangled


def main() -> int:
    if len(sys.argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    out, library, profiles = sys.argv[1], sys.argv[2], sys.argv[3:]
    score: dict[str, float] = {}
    for spec in profiles:
        profile, _, baseline = spec.partition(":")
        costs = self_costs(profile)
        if baseline:
            costs.subtract(self_costs(baseline))
        costs = collections.Counter({f: c for f, c in costs.items() if c > 0})
        total = sum(costs.values())
        if not total:
            print(f"order.py: {profile}: nothing of libodatastore.so", file=sys.stderr)
            return 1
        for f, c in costs.items():
            score[f] = max(score.get(f, 0.0), c / total)
        print(f"order.py: {profile}: {len(costs)} functions, {total:,} instructions", file=sys.stderr)
    names, demangled = symbols(library)
    lines, unknown = [], 0
    for f, s in sorted(score.items(), key=lambda kv: (-kv[1], kv[0])):
        if s < MIN_SHARE:
            break
        symbol = f if f in names else demangled.get(f)
        if symbol is None:
            unknown += 1  # e.g. a local label callgrind shows as an address
            continue
        lines.append(f".text.{symbol}\n")
    with open(out, "w") as fh:
        fh.writelines(dict.fromkeys(lines))
    print(f"order.py: {len(lines)} functions written to {out} ({unknown} without a symbol)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
