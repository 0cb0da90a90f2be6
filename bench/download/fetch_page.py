#!/usr/bin/env python3
"""Saves one page of the V4 test service as the library downloads it, for the decode
measurement: `Products?$top=N` with the headers libodatastore sends (minimal metadata,
IEEE754Compatible=true), and the service's $metadata.

    fetch_page.py <v4-service-root> <out-dir> [--top N]
Writes <out-dir>/page-v4.json and <out-dir>/metadata-v4.xml; prints the page's size.
"""
import argparse
import os
import urllib.request

parser = argparse.ArgumentParser()
parser.add_argument("root")
parser.add_argument("out")
parser.add_argument("--top", type=int, default=3500)
args = parser.parse_args()
headers = {"Accept": "application/json;odata.metadata=minimal;IEEE754Compatible=true",
           "OData-Version": "4.0", "OData-MaxVersion": "4.0"}
with urllib.request.urlopen(urllib.request.Request(f"{args.root}Products?$top={args.top}", headers=headers)) as r:
    page = r.read()
with urllib.request.urlopen(urllib.request.Request(f"{args.root}$metadata", headers={"Accept": "application/xml"})) as r:
    metadata = r.read()
os.makedirs(args.out, exist_ok=True)
with open(os.path.join(args.out, "page-v4.json"), "wb") as f:
    f.write(page)
with open(os.path.join(args.out, "metadata-v4.xml"), "wb") as f:
    f.write(metadata)
print(len(page))
