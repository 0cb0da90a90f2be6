#!/usr/bin/env python3
"""Keeps the exported symbols of libodatastore and include/odatastore.h in step.

    check_exports.py --library build/lib/libodatastore.so --header include/odatastore.h [--nm nm]
                     [--allow-missing]

Fails (exit 1) when
  - the library exports a dynamic symbol that does not start with `ods_`,
  - the library exports an `ods_` symbol that the header does not declare,
  - a function the header declares is not marked ODS_EXTERN,
  - a function the header declares is not exported (unless --allow-missing, which only
    reports them: CMake's ODS_STRICT_EXPORT_CHECK=OFF).

Exported means a defined global or weak symbol of the dynamic symbol table
(`nm -D --defined-only`). Local symbols that the linker keeps in .dynsym for relocations
(nm types b, d, r, t in lower case) are not exported and are ignored.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys


def strip_comments_and_preprocessor(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    # Drop preprocessor lines, joining backslash continuations first.
    text = re.sub(r"\\\n", " ", text)
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))


def header_functions(path: str) -> tuple[dict[str, str], list[str]]:
    """Returns {function name: declaration} and a list of problems.

    A function declaration is a top-level statement (outside braces), not a typedef, whose
    declarator is `name(`. Function-pointer typedefs and struct members are skipped.
    """
    with open(path, encoding="utf-8") as f:
        text = strip_comments_and_preprocessor(f.read())
    # `extern "C" {` opens a brace we must not count as a scope.
    text = re.sub(r'extern\s+"C"\s*\{', " ", text)
    statements: list[str] = []
    depth = 0
    current: list[str] = []
    for ch in text:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(0, depth - 1)
        if depth == 0 and ch == ";":
            statements.append("".join(current))
            current = []
        elif depth == 0 and ch != "}":
            current.append(ch)
    functions: dict[str, str] = {}
    problems: list[str] = []
    for statement in statements:
        decl = " ".join(statement.split())
        if not decl or decl.startswith("typedef") or decl.startswith("struct") or decl.startswith("enum"):
            continue
        match = re.search(r"\b([A-Za-z_]\w*)\s*\(", decl)
        if not match:
            continue  # a variable declaration: the header has none today
        name = match.group(1)
        functions[name] = decl
        if not decl.startswith("ODS_EXTERN"):
            problems.append(f"header: {name} is declared without ODS_EXTERN: {decl}")
        if not name.startswith("ods_"):
            problems.append(f"header: {name} does not start with ods_")
    return functions, problems


def exported_symbols(library: str, nm: str) -> set[str]:
    result = subprocess.run([nm, "-D", "--defined-only", library],
                            capture_output=True, text=True, check=False)
    if result.returncode != 0:
        sys.exit(f"check_exports: {nm} -D --defined-only {library} failed:\n{result.stderr}")
    symbols: set[str] = set()
    for line in result.stdout.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        kind, name = parts[-2], parts[-1]
        # Upper case: global. u: unique global. v, w: weak. Other lower case: local.
        if kind.isupper() or kind in ("u", "v", "w"):
            symbols.add(name.split("@")[0])
    return symbols


def unchecked_exports(directory: str, declared: dict[str, str]) -> list[str]:
    """Exports written with @_cdecl (the compiler does not compare them with the header) or
    without @implementation, and header functions with no Swift implementation at all."""
    import glob
    import os
    problems: list[str] = []
    implemented: set[str] = set()
    for path in sorted(glob.glob(os.path.join(directory, "*.swift"))):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for name in re.findall(r'@_cdecl\("(ods_\w+)"\)', text):
            problems.append(f"{os.path.basename(path)}: {name} is @_cdecl; use `@c @implementation` "
                            "so its signature is checked against the header")
        for attrs, name in re.findall(r"((?:@[\w()\"]+\s+)*)public func (ods_\w+)\(", text):
            implemented.add(name)
            if "@c" not in attrs.split() or "@implementation" not in attrs.split():
                problems.append(f"{os.path.basename(path)}: {name} is not `@c @implementation`")
    for name in sorted(set(declared) - implemented):
        problems.append(f"{name} is declared in the header but has no `@c @implementation` in {directory}")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--library", required=True)
    parser.add_argument("--header", required=True)
    parser.add_argument("--nm", default="nm")
    parser.add_argument("--allow-missing", action="store_true",
                        help="report header functions the library does not export without failing")
    parser.add_argument("--swift-sources", help="directory of the Swift exports (Sources/ODataStoreC): each "
                        "ods_ function there must be `@c @implementation`, so the compiler checks it against the header")
    args = parser.parse_args()

    declared, problems = header_functions(args.header)
    if args.swift_sources:
        problems += unchecked_exports(args.swift_sources, declared)
    exported = exported_symbols(args.library, args.nm)

    foreign = sorted(s for s in exported if not s.startswith("ods_"))
    undeclared = sorted(s for s in exported if s.startswith("ods_") and s not in declared)
    missing = sorted(s for s in declared if s not in exported)

    print(f"header declares {len(declared)} functions; library exports {len(exported)} symbols "
          f"({len(declared) - len(missing)} of the declared functions)")
    for p in problems:
        print(f"FAIL {p}")
    for s in foreign:
        print(f"FAIL exported symbol without the ods_ prefix: {s}")
    for s in undeclared:
        print(f"FAIL exported but not declared in {args.header}: {s}")
    label = "WARN" if args.allow_missing else "FAIL"
    for s in missing:
        print(f"{label} declared but not exported: {s}")
    if missing:
        print(f"{len(missing)} declared function(s) not exported"
              + (" (allowed: ODS_STRICT_EXPORT_CHECK=OFF)" if args.allow_missing else ""))

    failed = bool(problems or foreign or undeclared or (missing and not args.allow_missing))
    print("exports: FAILED" if failed else "exports: OK")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
