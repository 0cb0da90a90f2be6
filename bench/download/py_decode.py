#!/usr/bin/env python3
"""Python anchors of the decode measurement (bench/download/run.sh): CPython's json.loads
and msgspec.json.decode (untyped: dicts, lists, str, int, float), timed on the same page
bytes as the Swift decoder and simdjson. Prints one JSON line per decoder: best and median
seconds of `iterations` decodes (after two warm-up decodes).

    py_decode.py <page.json> [iterations]
"""
import json
import sys
import time


def measure(fn, iterations):
    fn()
    fn()
    times = []
    for _ in range(iterations):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    times.sort()
    return times[0], times[len(times) // 2]


path = sys.argv[1]
iterations = int(sys.argv[2]) if len(sys.argv) > 2 else 30
data = open(path, "rb").read()
best, median = measure(lambda: json.loads(data), iterations)
print(json.dumps({"name": "json.loads", "version": sys.version.split()[0], "bytes": len(data),
                  "best": best, "median": median}))
try:
    import msgspec
except ImportError:
    print(json.dumps({"name": "msgspec", "missing": True}))
else:
    decoder = msgspec.json.Decoder()
    best, median = measure(lambda: decoder.decode(data), iterations)
    print(json.dumps({"name": "msgspec", "version": msgspec.__version__, "bytes": len(data),
                      "best": best, "median": median}))
