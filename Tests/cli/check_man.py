#!/usr/bin/env python3
"""Checks man/ against the odatastore command: every subcommand (nested ones too) has its
page, and each page's one-line summary (.Nd) is the command's current abstract (the OVERVIEW
line of its --help). Regenerate the pages with `bash scripts/man.sh` when this fails.

Usage: python3 Tests/cli/check_man.py path/to/odatastore
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
binary = sys.argv[1]


def help_of(words):
    out = subprocess.run([binary, *words, "--help"], capture_output=True, text=True, timeout=30).stdout
    overview = ""
    lines = out.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("OVERVIEW: "):
            overview = line[len("OVERVIEW: "):]
            # A long abstract wraps: the continuation lines run until the blank line.
            for more in lines[i + 1:]:
                if not more.strip():
                    break
                overview += " " + more.strip()
            break
    subs = []
    if "SUBCOMMANDS:" in out:
        section = out.split("SUBCOMMANDS:", 1)[1]
        for line in section.splitlines():
            m = re.match(r"^  ([a-z][a-z-]*)\s", line + " ")
            if m and m.group(1) != "help":
                subs.append(m.group(1))
            elif line and not line.startswith(" "):
                break
    return overview, subs


failures = 0
pending = [[]]
checked = 0
while pending:
    words = pending.pop()
    overview, subs = help_of(words)
    pending += [words + [s] for s in subs]
    page = os.path.join(ROOT, "man", ".".join(["odatastore", *words]) + ".1")
    if not os.path.exists(page):
        print(f"FAIL no man page for 'odatastore {' '.join(words)}': {os.path.relpath(page, ROOT)}")
        failures += 1
        continue
    with open(page) as f:
        text = f.read()
    m = re.search(r'^\.Nd "(.*)"$', text, re.M)
    summary = m.group(1) if m else ""
    if " ".join(summary.split()) != " ".join(overview.split()):
        print(f"FAIL {os.path.basename(page)}: summary {summary!r} != the command's {overview!r} (run bash scripts/man.sh)")
        failures += 1
    checked += 1
print(f"{checked} pages checked, {failures} failed")
sys.exit(1 if failures or checked < 10 else 0)
