"""CPython baselines on the same bytes: json.loads for JSON pages, xml.etree for Atom.
Prints one JSON line per file: best and median seconds."""
import json, statistics, sys, time
import xml.etree.ElementTree as ET

def measure(fn, iterations):
    times = []
    for _ in range(iterations):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    times.sort()
    return times[0], times[len(times) // 2]

name, path, kind, iterations = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
data = open(path, "rb").read()
fn = (lambda: json.loads(data)) if kind == "json" else (lambda: ET.fromstring(data))
fn(); fn()
best, median = measure(fn, iterations)
print(json.dumps({"name": name, "pythonBest": best, "pythonMedian": median, "baseline": "json.loads" if kind == "json" else "xml.etree.ElementTree.fromstring", "python": sys.version.split()[0]}))
