#!/usr/bin/env python3
"""Runs one client process and measures it from outside, as `/usr/bin/time -v` would.

    measure.py [--cpu N] -- COMMAND [ARG ...]

Starts COMMAND (pinned to CPU N with sched_setaffinity when --cpu is given), waits for it
with os.wait4 and prints one JSON line: the process's wall time, user and sys CPU time and
peak RSS (ru_maxrss) from the kernel's accounting of that child, everything included
(process start, dynamic loading, $metadata, the download, closing), its exit status, and
its own stdout's last line parsed as JSON when it is JSON ("inner"; the CLI's status, or
the client's own interval measurement). The child's stderr passes through.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time


def main() -> int:
    args = sys.argv[1:]
    cpu = None
    if args[:1] == ["--cpu"]:
        cpu = int(args[1])
        args = args[2:]
    if args[:1] == ["--"]:
        args = args[1:]
    if not args:
        print("usage: measure.py [--cpu N] -- COMMAND [ARG ...]", file=sys.stderr)
        return 64

    def pin() -> None:
        if cpu is not None:
            os.sched_setaffinity(0, {cpu})

    t0 = time.monotonic()
    child = subprocess.Popen(args, stdout=subprocess.PIPE, preexec_fn=pin)
    out = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    t1 = time.monotonic()
    child.returncode = os.waitstatus_to_exitcode(status)
    inner = None
    lines = [line for line in out.decode("utf-8", "replace").splitlines() if line.strip()]
    if lines:
        try:
            inner = json.loads(lines[-1])
        except ValueError:
            inner = None
    print(json.dumps({
        "wall_ms": round((t1 - t0) * 1e3, 3),
        "user_ms": round(usage.ru_utime * 1e3, 3),
        "sys_ms": round(usage.ru_stime * 1e3, 3),
        "cpu_ms": round((usage.ru_utime + usage.ru_stime) * 1e3, 3),
        "maxrss_kb": usage.ru_maxrss,
        "exit": child.returncode,
        "inner": inner,
    }), flush=True)
    return 0 if child.returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
