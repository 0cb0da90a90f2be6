#!/usr/bin/env python3
"""Writes mutated copies of JSON bodies for bench/decode/check_outputs.sh: member order
reversed or shuffled per object, members dropped, a member repeated (a duplicate the decoder
must reject) at one object at a time, keys spelled with escapes, and collections whose
entities alternate between those orders (the decoder's lookup by position must fall back).

    mutate_fixtures.py <out-dir> <body.json>...
Prints the paths written, one a line. Deterministic (fixed seeds).
"""
import json
import os
import random
import sys


class Raw:
    def __init__(self, text):
        self.text = text


def dump(v, escape_keys=False):
    if is_object(v):
        parts = []
        for k, x in v:
            if escape_keys and k:
                key = '"\\u%04x' % ord(k[0]) + json.dumps(k[1:], ensure_ascii=False)[1:]
            else:
                key = json.dumps(k, ensure_ascii=False)
            parts.append(key + ":" + dump(x, escape_keys))
        return "{" + ",".join(parts) + "}"
    if isinstance(v, list):
        return "[" + ",".join(dump(x, escape_keys) for x in v) + "]"
    if isinstance(v, Raw):
        return v.text
    return json.dumps(v, ensure_ascii=False)


class Obj(list):
    pass


def is_object(v):
    return isinstance(v, Obj)


def load_marked(data):
    return json.loads(data, object_pairs_hook=lambda pairs: Obj((k, v) for k, v in pairs),
                      parse_int=Raw, parse_float=Raw, parse_constant=Raw)


def transform(v, fn):
    """Applies fn to every object, children first."""
    if is_object(v):
        return fn(Obj((k, transform(x, fn)) for k, x in v))
    if isinstance(v, list):
        return [transform(x, fn) for x in v]
    return v


def replace(v, old, new):
    """v with the list `old` (by identity) replaced by `new`."""
    if v is old:
        return new
    if is_object(v):
        return Obj((k, replace(x, old, new)) for k, x in v)
    if isinstance(v, list):
        return [replace(x, old, new) for x in v]
    return v


def objects(v, acc):
    if is_object(v):
        acc.append(v)
        for _, x in v:
            objects(x, acc)
    elif isinstance(v, list):
        for x in v:
            objects(x, acc)
    return acc


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    written = []

    def write(name, text):
        p = os.path.join(out, name)
        with open(p, "w", encoding="utf-8") as f:
            f.write(text)
        written.append(p)

    for n, path in enumerate(sys.argv[2:]):
        try:
            doc = load_marked(open(path, "rb").read())
        except Exception:
            continue
        base = "%03d-%s" % (n, os.path.basename(path))
        rnd = random.Random(n)
        write(base + ".same.json", dump(doc))
        write(base + ".reversed.json", dump(transform(doc, lambda o: Obj(reversed(o)))))

        def shuffled(o):
            o = Obj(o)
            rnd.shuffle(o)
            return o
        write(base + ".shuffled.json", dump(transform(doc, shuffled)))

        def dropped(o):
            if len(o) > 1 and rnd.random() < 0.5:
                o = Obj(o)
                del o[rnd.randrange(len(o))]
            return o
        write(base + ".dropped.json", dump(transform(doc, dropped)))
        write(base + ".escaped.json", dump(doc, escape_keys=True))
        # One duplicate at a time, in the k-th object (first member repeated at its end, or
        # the last member repeated after a different one).
        count = len(objects(doc, []))
        for k in range(min(count, 12)):
            counter = [0]

            def dup(o, k=k, counter=counter):
                i = counter[0]
                counter[0] += 1
                if i == k and o:
                    o = Obj(o)
                    o.append(o[0] if k % 2 == 0 else o[len(o) // 2])
                return o
            write(base + ".dup%d.json" % k, dump(transform(doc, dup)))
        # A collection whose entities alternate between member orders.
        if is_object(doc):
            value = [x for k, x in doc if k in ("value", "results", "d")]
            items = None
            for v in value:
                if is_object(v):
                    inner = [x for k, x in v if k == "results" and isinstance(x, list) and not is_object(x)]
                    items = inner[0] if inner else None
                elif isinstance(v, list):
                    items = v
            if items:
                mixed = []
                for i, e in enumerate(items * 3):
                    if i % 3 == 1:
                        e = transform(e, lambda o: Obj(reversed(o)))
                    elif i % 3 == 2:
                        e = transform(e, shuffled)
                    mixed.append(e)
                    mixed.append(e)
                write(base + ".mixed.json", dump(replace(doc, items, mixed)))
    print("\n".join(written))


main()
