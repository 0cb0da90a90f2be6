#!/usr/bin/env python3
"""Turns build/bench-download/results.jsonl (bench/download/run.sh) into the results block of
"## Offline store: first download" in docs/benchmarks.md (between the
`offline-download:results` markers; the hand-written text around them is kept), or prints it.

Figures: per client, the medians over the rounds; ratios are medians of per-round ratios
(each peer against libodatastore's CLI measured a minute earlier or later against the same
server process), which cancels slow drifts in machine load.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import statistics
import subprocess

BEGIN = "<!-- offline-download:results:begin -->"
END = "<!-- offline-download:results:end -->"

LABELS = {
    "cli-v4": "`odatastore offline init` (CLI), page 10,000",
    "cli-v4-p1000": "`odatastore offline init` (CLI), page 1,000",
    "c-v4": "libodatastore through the C API (`ods_download`)",
    "alt-v4": "`ods_download` with the other build (`--compare-lib`)",
    "lean-v4": "lean Python: urllib + json + sqlite3",
    "python-odata": "python-odata 0.8.1 + sqlite3",
    "cli-v2": "`odatastore offline init` (CLI)",
    "c-v2": "libodatastore through the C API (`ods_download`)",
    "lean-v2": "lean Python: urllib + json + sqlite3",
    "pyodata": "pyodata 1.12.1 + sqlite3",
}
ORDER = ["cli-v4", "cli-v4-p1000", "c-v4", "alt-v4", "lean-v4", "python-odata", "cli-v2", "c-v2", "lean-v2", "pyodata"]
NO_SERVER = ("sqlite-store", "sqlite-upsert", "sqlite-late")


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def fmt_range(xs, f="%.1f"):
    if not xs:
        return "-"
    return (f + " (" + f + "-" + f + ")") % (med(xs), min(xs), max(xs))


def machine() -> str:
    cpu = "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        swift = subprocess.run(["swift", "--version"], capture_output=True, text=True, timeout=60).stdout.splitlines()[0]
    except Exception:  # noqa: BLE001
        swift = "swift ?"
    try:
        sqlite = subprocess.run(["sqlite3", "--version"], capture_output=True, text=True, timeout=10).stdout.split()[0]
    except Exception:  # noqa: BLE001
        import sqlite3
        sqlite = sqlite3.sqlite_version
    return f"{os.cpu_count()} CPUs, {cpu}, Linux {platform.release()}, {swift}, SQLite {sqlite}"


def commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True).stdout.strip()
    except Exception:  # noqa: BLE001
        return "?"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--results", required=True)
    ap.add_argument("--doc")
    ap.add_argument("--rounds", type=int)
    ap.add_argument("--command", default="bash bench/download/run.sh", help="the command line that produced the results")
    ap.add_argument("--load-start", default="?")
    ap.add_argument("--load-end", default="?")
    ap.add_argument("--v4-page", type=int, default=10000)
    ap.add_argument("--v2-page", type=int, default=5000)
    ap.add_argument("--products", type=int, default=100000)
    ap.add_argument("--categories", type=int, default=100)
    ap.add_argument("--v2-products", type=int, default=20000)
    ap.add_argument("--v2-categories", type=int, default=20)
    ap.add_argument("--pinned", type=int, default=1)
    ap.add_argument("--iterations", type=int, default=30)
    a = ap.parse_args()

    rows = [json.loads(line) for line in open(a.results) if line.strip()]
    runs: dict[str, list[dict]] = {}
    decode_runs: dict[str, list[dict]] = {}
    loads = []
    for r in rows:
        if r["key"].startswith("decode"):
            res = r["result"]
            decode_runs.setdefault(res.get("name", r["key"]), []).append(res)
            continue
        runs.setdefault(r["key"], []).append(r)
        loads.append(r["loadavg"])

    # Several processes per decoder (run.sh --decode-processes): the best of their best runs
    # and the median of their medians.
    decode: dict[str, dict] = {}
    decode_processes = 0
    for name, results in decode_runs.items():
        merged = dict(results[-1])
        for best, median in (("decodeBest", "decodeMedian"), ("best", "median")):
            if all(best in x for x in results):
                merged[best] = min(x[best] for x in results)
                merged[median] = statistics.median(x[median] for x in results)
        decode[name] = merged
        decode_processes = max(decode_processes, len(results))

    def per_entity_us(r, inner=False):
        res = r["result"]
        if inner:
            inn = res.get("inner") or {}
            if "cpu_ms" not in inn:
                return None
            return inn["cpu_ms"] * 1e3 / r["entities"]
        return res["cpu_ms"] * 1e3 / r["entities"]

    def by_round(key):
        return {r["round"]: r for r in runs.get(key, [])}

    out = []
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    out.append(f"Generated by `{a.command}` on {now}; commit {commit()}.")
    out.append(f"Machine: {machine()}.")
    out.append(
        f"{a.rounds} rounds; per round a fresh V4 server (odatapy, {a.products:,} products over {a.categories} categories, "
        f"server page size {a.v4_page:,}) and a fresh V2 server (pyslet, {a.v2_products:,} products over "
        f"{a.v2_categories} categories, server page size {a.v2_page:,}), each client after the other against it, "
        f"order alternating. Server pinned to CPU 0, client to CPU 1: {'yes' if a.pinned else 'no'}. "
        f"Load average (1/5/15 min) at start {a.load_start}, at end {a.load_end}; "
        f"1-minute load when each client started: {min(loads) if loads else 0:.2f}-{max(loads) if loads else 0:.2f} "
        "(other jobs were running on the machine).")
    out.append("")
    out.append("| Client | Server | Entities | Client CPU per entity, us: whole process, median (min-max) | "
               "CPU per entity, us: timed interval | user / sys ms | Wall s | Peak RSS MB, median (max) | File bytes per entity |")
    out.append("|---|---|---|---|---|---|---|---|---|")
    for key in ORDER:
        rs = runs.get(key)
        if not rs:
            continue
        whole = [per_entity_us(r) for r in rs]
        inner = [x for x in (per_entity_us(r, True) for r in rs) if x is not None]
        user = med([r["result"]["user_ms"] for r in rs])
        sys_ = med([r["result"]["sys_ms"] for r in rs])
        wall = med([r["result"]["wall_ms"] / 1e3 for r in rs])
        rss = [r["result"]["maxrss_kb"] / 1024 for r in rs]
        fsize = med([r["store"]["file_bytes"] / r["entities"] for r in rs])
        server = "V4 odatapy" if rs[0]["server"] == "v4" else "V2 pyslet"
        out.append(f"| {LABELS.get(key, key)} | {server} | {rs[0]['entities']:,} | {fmt_range(whole, '%.2f')} | "
                   f"{fmt_range(inner, '%.2f') if inner else '-'} | {user:.0f} / {sys_:.0f} | {wall:.1f} | "
                   f"{med(rss):.1f} ({max(rss):.1f}) | {fsize:.0f} |")
    out.append("")

    def ratio(peer, base, inner_peer=False, inner_base=False):
        pr, br = by_round(peer), by_round(base)
        xs = []
        for rnd in sorted(set(pr) & set(br)):
            p = per_entity_us(pr[rnd], inner_peer)
            b = per_entity_us(br[rnd], inner_base)
            if p is not None and b:
                xs.append(p / b)
        return xs

    def verdict(ok):
        return "**met**" if ok else "**missed**"

    out.append("Targets (ratios: medians of per-round ratios of client CPU per entity, whole processes):")
    out.append("")
    lines = []
    x = ratio("lean-v4", "cli-v4")
    if x:
        lines.append(f"- V4, lean Python / `odatastore offline init`: **{med(x):.2f}x** (rounds {', '.join('%.2f' % v for v in x)}; "
                     f"target >= 3x: {verdict(med(x) >= 3)}).")
    x = ratio("lean-v4", "c-v4", True, True)
    if x:
        lines.append(f"- V4, the same on the timed intervals (lean Python's download loop / the library's open-to-open through the C API): "
                     f"{med(x):.2f}x.")
    x = ratio("alt-v4", "c-v4", True, True)
    if x:
        lines.append(f"- The other build (`--compare-lib`) / this build, through the C API, timed intervals: {med(x):.2f}x "
                     f"(rounds {', '.join('%.2f' % v for v in x)}).")
    x = ratio("python-odata", "cli-v4")
    if x:
        lines.append(f"- V4, python-odata / `odatastore offline init`: **{med(x):.2f}x** (target >= 10x: {verdict(med(x) >= 10)}).")
    x = ratio("pyodata", "cli-v2")
    if x:
        lines.append(f"- V2, pyodata / `odatastore offline init`: **{med(x):.2f}x** (target >= 10x: {verdict(med(x) >= 10)}).")
    x = ratio("lean-v2", "cli-v2")
    if x:
        lines.append(f"- V2, lean Python / `odatastore offline init`: {med(x):.2f}x (no target; for scale).")
    for key in ("cli-v4", "cli-v4-p1000", "cli-v2"):
        rs = runs.get(key)
        if rs:
            peak = max(r["result"]["maxrss_kb"] for r in rs) / 1024
            lines.append(f"- Peak RSS of {LABELS[key]} ({'V2' if key.endswith('v2') else 'V4'}): {peak:.1f} MB at most over the rounds "
                         f"(target < 64 MB: {verdict(peak < 64)}).")
    out += lines
    out.append("")

    # SQLite alone.
    sq = [(k, runs.get(k)) for k in ("sqlite-store", "sqlite-upsert", "sqlite-late") if runs.get(k)]
    if sq:
        out.append("SQLite alone (`bench/download/sqlite_insert.c`, same rounds, no server: the same number of product rows "
                   "written into the store's table layout with one prepared statement, one transaction per page; values made "
                   "before the clock starts, so this is SQLite's work only):")
        out.append("")
        out.append("| Statements per row | CPU per row, us: median (min-max) | vs. the library's whole download (C API), per round |")
        out.append("|---|---|---|")
        labels = {
            "sqlite-store": "what the store ran before proposals 1 and 5: `INSERT ... ON CONFLICT DO UPDATE ... RETURNING \"@rid\"` + `INSERT OR IGNORE INTO ods_members` per row",
            "sqlite-upsert": "the upsert the store runs now: without `RETURNING`, no `ods_members` row (a download records the rows it inserts as row-id ranges, per page)",
            "sqlite-late": "plain `INSERT`, the key and CategoryID indexes built once after the load",
        }
        base = by_round("c-v4")
        for key, rs in sq:
            us = [r["result"]["inner"]["cpu_us_per_row"] for r in rs]
            fr = [r["result"]["inner"]["cpu_us_per_row"] / per_entity_us(base[r["round"]], True)
                  for r in rs if r["round"] in base and per_entity_us(base[r["round"]], True)]
            out.append(f"| {labels[key]} | {fmt_range(us, '%.2f')} | {('%.2f' % med(fr)) if fr else '-'} |")
        out.append("")

    # Store size.
    rs = runs.get("cli-v4")
    if rs:
        r = rs[0]
        n = r["entities"]
        tables = r["store"].get("tables") or {}
        parts = ", ".join(f"`{name}` {b / n:.0f}" for name, b in tables.items())
        out.append(f"Store file after `offline init` of {n:,} V4 products: {r['store']['file_bytes']:,} bytes, "
                   f"{r['store']['file_bytes'] / n:.0f} bytes per entity (WAL checkpointed at close: {r['store']['wal_bytes']:,} bytes left)"
                   + (f"; per table and index, bytes per entity: {parts}" if parts else "") + ". "
                   f"The response bodies were {((r['result'].get('inner') or {}).get('definingRequests') or [{}])[0].get('bytes', 0) / n:.0f} bytes per entity.")
        lean = runs.get("lean-v4")
        if lean:
            out.append(f"The lean Python client's untyped table (the page's columns and the ETag; no CategoryID index, no membership table): "
                       f"{lean[0]['store']['file_bytes'] / n:.0f} bytes per entity.")
        out.append("")

    # Decode.
    if decode:
        sw = decode.get("v4-products-page")
        simd = decode.get("simdjson")
        nbytes = sw["bytes"] if sw else (simd or {}).get("bytes", 0)
        out.append(f"Decode of one {nbytes:,}-byte V4 page (`Products?$top=3500` from the same V4 server, minimal metadata, "
                   f"IEEE754Compatible; {a.iterations} runs in each of {decode_processes} processes per decoder, "
                   f"the decoders alternating: the best of the processes' best runs and the median of their medians; "
                   f"pinned to CPU 1):")
        out.append("")
        out.append("| Decoder | ms (best / median) | MB/s (best / median) | Fraction of simdjson's speed (best / median) |")
        out.append("|---|---|---|---|")
        items = []
        if sw:
            items.append(("libodatastore `PayloadDecoder.decode` as the download calls it (typed, to canonical JSON)", sw["decodeBest"], sw["decodeMedian"]))
        for name, label in (("json.loads", "CPython `json.loads` (%s)"), ("msgspec", "msgspec %s `msgspec.json.Decoder().decode` (untyped)")):
            d = decode.get(name)
            if d and not d.get("missing"):
                items.append((label % d.get("version", "?"), d["best"], d["median"]))
        if simd:
            items.append((f"simdjson {simd.get('version', '?')} On-Demand walk of every value ({simd.get('implementation', '?')} kernel)",
                          simd["best"], simd["median"]))
        for label, best, median in items:
            fb = f"{simd['best'] / best:.2f} / {simd['median'] / median:.2f}" if simd else "-"
            out.append(f"| {label} | {best * 1e3:.2f} / {median * 1e3:.2f} | {nbytes / best / 1e6:.0f} / {nbytes / median / 1e6:.0f} | {fb} |")
        out.append("")
        if sw and simd:
            frac = simd["best"] / sw["decodeBest"]
            out.append(f"- Our decode runs at {frac:.2f} of simdjson's speed (best runs; medians {simd['median'] / sw['decodeMedian']:.2f}); "
                       f"target >= 0.33: {verdict(frac >= 1 / 3)}. Per entity: {sw['decodeBest'] * 1e6 / sw['entities']:.2f} us "
                       f"(simdjson {simd['best'] * 1e6 / sw['entities']:.2f} us).")
            out.append("")
    block = "\n".join(out).rstrip() + "\n"

    if not a.doc:
        print(block)
        return 0
    text = open(a.doc).read()
    if BEGIN in text and END in text:
        text = re.sub(re.escape(BEGIN) + r".*?" + re.escape(END), lambda m: BEGIN + "\n\n" + block + "\n" + END, text, flags=re.S)
    else:
        text = text.rstrip("\n") + "\n\n## Offline store: first download\n\n" + BEGIN + "\n\n" + block + "\n" + END + "\n"
    open(a.doc, "w").write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
