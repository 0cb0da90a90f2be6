#!/usr/bin/env python3
"""End-to-end tests of the odatastore command's own argument parser
(Sources/odatastore-cli/Arguments), through the real binary: `--name value` and
`--name=value`, repeatable options, `--` ending the options, values that start with `-`,
counted flags, usage errors (exit status 64, the message, the "Help:" line, the usage line),
--help of nested commands and `help WORDS`, --version, $COLUMNS, and the man pages the
command generates (`--generate-man-pages`, the same as man/ but for the date).

Usage: <venv python> Tests/cli/test_cli_args.py path/to/odatastore
Prints one line per failure and "N passed, N failed"; exits 1 if anything failed.
"""
import json
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli_support import ROOT, Server, check, results  # noqa: E402
from cli_support import run as run_cli  # noqa: E402

binary = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("ODATASTORE_CLI", os.path.join(ROOT, ".build/debug/odatastore-cli"))
os.environ.pop("COLUMNS", None)
os.environ.pop("ODATASTORE_TOKEN", None)
UNREACHABLE = "http://127.0.0.1:1/x/"


def run(*args):
    return run_cli(binary, *args, timeout=60)


def usage_error(name, args, message, usage_of, help_line=None):
    """Exit 64, nothing on stdout, stderr: the message, the Help: line if any, the usage of
    `usage_of` and where to find more."""
    code, out, err = run(*args)
    lines = err.splitlines()
    check(f"{name}: exit 64", code == 64, f"exit {code} {err!r}")
    check(f"{name}: stdout empty", out == "", repr(out))
    check(f"{name}: message", lines[:1] == [f"Error: {message}"], repr(err))
    if help_line is not None:
        check(f"{name}: help line", len(lines) > 1 and lines[1] == f"Help:  {help_line}", repr(err))
    command = f"odatastore {usage_of}".strip()
    check(f"{name}: usage line", any(line.startswith(f"Usage: {command} ") for line in lines), repr(err))
    check(f"{name}: see --help", lines[-1:] == [f"  See '{command} --help' for more information."], repr(err))


# Unknown options, with a suggestion when a long name is close.
usage_error("unknown option", ["parse", "A", "--bogus"], "Unknown option '--bogus'", "parse")
usage_error("unknown option with =", ["parse", "A", "--bogus=1"], "Unknown option '--bogus'", "parse")
usage_error("unknown short option", ["get", "P", "-x"], "Unknown option '-x'", "get")
usage_error("unknown letter in a group", ["get", "P", "-vx"], "Unknown option '-x'", "get")
usage_error("suggestion", ["get", "P", "--servic", "http://h/"], "Unknown option '--servic'. Did you mean '--service'?", "get")
usage_error("single-dash long name", ["parse", "-metadata=x", "A"], "Unknown option '-metadata'. Did you mean '--metadata'?", "parse")
usage_error("unknown option of a group command", ["offline", "--bogus"], "Unknown option '--bogus'", "offline")
usage_error("unknown subcommand", ["frobnicate"], "Unexpected argument 'frobnicate'", "")
usage_error("unknown nested subcommand", ["offline", "frob"], "Unexpected argument 'frob'", "offline")
usage_error("unknown option of the root, with =", ["--bogus=1"], "Unknown option '--bogus'", "")
usage_error("after --, a group takes no values", ["offline", "--", "init"], "Unexpected argument 'init'", "offline")
usage_error("extra positionals", ["parse", "A", "B", "C"], "2 unexpected arguments: 'B', 'C'", "parse")

# Missing values and arguments, bad values: the Help: line names the argument.
metadata_help = "--metadata <metadata>  Check the request against this $metadata document (V2 or V4)."
usage_error("missing value at the end", ["parse", "A", "--metadata"], "Missing value for '--metadata <metadata>'", "parse", metadata_help)
usage_error("missing value before an option", ["parse", "A", "--metadata", "--plus-as-space"],
            "Missing value for '--metadata <metadata>'", "parse", metadata_help)
usage_error("missing value before --", ["parse", "A", "--metadata", "--"], "Missing value for '--metadata <metadata>'", "parse", metadata_help)
usage_error("empty value after =", ["parse", "A", "--metadata="], "Missing value for '--metadata <metadata>'", "parse", metadata_help)
usage_error("a value starting with - is not taken from the next word", ["parse", "A", "--metadata", "-x"],
            "Missing value for '--metadata <metadata>'", "parse", metadata_help)
# ...except a number after an integer option: "-3" is its (refused) value, not a missing one.
usage_error("a negative number after an integer option", ["get", "P", "--timeout", "-3"],
            "The value '-3' is invalid for '--timeout <timeout>': it must not be negative", "get",
            "--timeout <timeout>  Seconds allowed for each HTTP exchange (default 60).")
usage_error("missing positional", ["parse"], "Missing expected argument '<url>'", "parse",
            "<url>  The URL: absolute, an absolute path, or relative to the service root.")
usage_error("missing required option", ["create", "Products"], "Missing expected argument '--data <data>'", "create",
            "--data <data>  The entity as JSON.")
usage_error("bad integer", ["offline", "init", "--service", UNREACHABLE, "--store", "x.store", "--page-size", "abc"],
            "The value 'abc' is invalid for '--page-size <page-size>'", "offline init",
            "--page-size <page-size>  Entities per page asked of V4 services while downloading (default 1000).")
usage_error("negative integer", ["get", "P", "--service", UNREACHABLE, "--timeout", "-1"],
            "The value '-1' is invalid for '--timeout <timeout>': it must not be negative", "get",
            "--timeout <timeout>  Seconds allowed for each HTTP exchange (default 60).")
usage_error("negative integer inline", ["offline", "init", "--service", UNREACHABLE, "--store", "x.store", "--page-size=-5"],
            "The value '-5' is invalid for '--page-size <page-size>': it must not be negative", "offline init")
usage_error("bad Int64", ["offline", "errors", "--store", "x.store", "--retry", "1.5"],
            "The value '1.5' is invalid for '--retry <retry>'", "offline errors", "--retry <retry>  Queue archived change ID again.")
usage_error("bad choice", ["get", "P", "--mode", "sideways"],
            "The value 'sideways' is invalid for '--mode <mode>'. Please provide one of 'online', 'offline' or 'mixed'.", "get")
usage_error("bad choice of two", ["get", "P", "--output=csv"],
            "The value 'csv' is invalid for '--output <output>'. Please provide one of 'json' and 'table'.", "get")
usage_error("a flag takes no value", ["get", "P", "--all-pages=yes"],
            "The option '--all-pages' does not take any value, but 'yes' was specified.", "get")
usage_error("after --, options are positionals", ["parse", "A", "--", "--metadata"], "Unexpected argument '--metadata'", "parse")

# validate() and the checks made while running are usage errors too, with the command's usage.
usage_error("validate", ["offline", "errors", "--store", "x.store", "--retry", "1", "--revert", "2"],
            "--retry and --revert exclude each other", "offline errors")
usage_error("validate of a shared group", ["delete", "P", "--mode", "mixed"], "--mode mixed needs --store FILE", "delete")
usage_error("required --service", ["offline", "init", "--store", "x.store"],
            "--service URL is required to make a new store file (x.store does not exist yet)", "offline init")
usage_error("checked while running", ["get", "P", "--header", "no colon", "--service", UNREACHABLE],
            "--header must look like \"Name: value\"", "get")

# Accepted forms: --name=value, a value starting with - after =, "-" as a value, --, last value wins.
code, out, err = run("parse", "Products", "--odata-version=4")
check("--name=value", code == 0 and json.loads(out)["version"] == "4.0", f"{code} {out!r} {err!r}")
code, out, err = run("parse", "Products", "--odata-version", "2", "--odata-version", "4")
check("the last value of an option wins", code == 0 and json.loads(out)["version"] == "4.0", f"{code} {out!r} {err!r}")
code, out, err = run("parse", "A", "--metadata=/nonexistent/metadata.xml")
check("--metadata=FILE is read", code == 66 and "cannot read /nonexistent/metadata.xml" in err, f"{code} {err!r}")
code, out, err = run("parse", "A", "--metadata=-x")
check("--metadata=-x: a value starting with - after =", code == 66 and "cannot read -x" in err, f"{code} {err!r}")
code, out, err = run("parse", "--", "-A", "--odata-version", "4")
check("-- ends the options: -A is the URL", code == 64 and "2 unexpected arguments: '--odata-version', '4'" in err, f"{code} {err!r}")
code, out, err = run("parse", "--odata-version", "4", "--", "-A")
check("-- then a URL starting with -", code == 2 and err.startswith("error: ") and "\n  -A\n  ^" in err, f"{code} {err!r}")
code, out, err = run("parse", "-", "--odata-version", "4")
check("- alone is a value", code == 2 and "\n  -\n  ^" in err, f"{code} {err!r}")
code, out, err = run("parse", "--plus-as-space", "Products?$filter=Name+eq+'x'", "--plus-as-space", "--odata-version", "4")
check("a flag twice, options before the positional", code == 0 and "'x'" in json.dumps(json.loads(out)), f"{code} {out!r} {err!r}")

# Counted flags: -v, -vv, -v -v, --verbose.
for flags, debug in [(["-v"], False), (["-vv"], True), (["-v", "-v"], True), (["--verbose"], False), (["--verbose", "-v"], True)]:
    code, out, err = run("get", "P", *flags, "--service", UNREACHABLE)
    check(f"{flags}: logs", code == 24 and "odatastore: info store: " in err, f"{code} {err!r}")
    check(f"{flags}: debug lines {debug}", ("odatastore: debug " in err) == debug, err)

# Help: --help, -h, help WORDS, nested commands, a group called alone; help wins over errors.
code, root_help, err = run("--help")
check("--help", code == 0 and root_help.startswith("OVERVIEW: ") and "\nUSAGE: odatastore <subcommand>\n" in root_help, root_help)
check("--help lists the subcommands, not help", "\nSUBCOMMANDS:\n  parse " in root_help and "\n  help " not in root_help
      and root_help.endswith("  See 'odatastore help <subcommand>' for detailed help.\n"), root_help)
for words in [[], ["help"], ["-h"], ["help", "frob"], ["--bogus", "--help"], ["--"]]:
    code, out, err = run(*words)
    check(f"{words} prints the root help", code == 0 and out == root_help and err == "", f"{code} {err!r}")
code, init_help, _ = run("offline", "init", "--help")
check("offline init --help", code == 0 and init_help.startswith("OVERVIEW: Create an offline store and download its defining requests.\n")
      and "\nUSAGE: odatastore offline init [--service <service>] [--store <store>] [--header <header> ...]" in init_help
      and "\n  --define <define>       A defining request (repeatable).\n" in init_help
      and "\n  -v, --verbose           Log what" in init_help
      and init_help.endswith("  --version               Show the version.\n  -h, --help              Show help information.\n\n"),
      init_help)
for words in [["help", "offline", "init"], ["offline", "init", "-h"], ["offline", "init", "--store", "x", "--bogus", "--help"],
              ["offline", "init", "-vh"], ["help", "offline", "init", "extra"]]:
    code, out, err = run(*words)
    check(f"{words} is offline init's help", code == 0 and out == init_help, f"{code} {out[:200]!r} {err!r}")
code, offline_help, _ = run("offline")
check("a group alone prints its help", code == 0 and "\nSUBCOMMANDS:\n  init " in offline_help and "\n  errors " in offline_help
      and offline_help.endswith("  See 'odatastore help offline <subcommand>' for detailed help.\n"), offline_help)
code, out, _ = run("help", "offline")
check("help offline", code == 0 and out == offline_help, out)
code, out, _ = run("update", "--help")
check("past 12 arguments the usage keeps the required ones",
      "\nUSAGE: odatastore update [<options>] <path> --data <data>\n" in out, out)
code, out, _ = run("get", "--help")
check("choices and default in help", "(values: online, offline, mixed; default: online)" in out.replace("\n                          ", " "), out)
code, out, _ = run("help", "help")
check("help help", code == 0 and "\nUSAGE: odatastore help [<subcommands> ...]\n" in out and "-h, --help" not in out, out)

# Wrapping: $COLUMNS, else 80 (stdout is not a terminal here).
check("80 columns", all(len(line) <= 80 or " " not in line.strip() or line.startswith("USAGE: ")
                        for line in init_help.splitlines()), init_help)
env_code, narrow = None, None
os.environ["COLUMNS"] = "50"
code, narrow, _ = run("offline", "init", "--help")
del os.environ["COLUMNS"]
check("COLUMNS=50", code == 0 and narrow != init_help and all(len(line) <= 50 or line.startswith("USAGE: ")
                                                             or " " not in line.strip() for line in narrow.splitlines()), narrow)

# --version anywhere.
for words in [["--version"], ["get", "P", "--version"], ["offline", "init", "--version"]]:
    code, out, err = run(*words)
    check(f"{words}", code == 0 and re.fullmatch(r"odatastore \d+\.\d+\.\d+\S*\n", out) is not None and err == "", f"{code} {out!r}")

# Repeated --define (both forms), in order, against the real V4 service.
v4 = Server("serve.py", "v4")
work = tempfile.mkdtemp(prefix="ods_cli_args_")
try:
    store = os.path.join(work, "a.store")
    code, out, err = run("offline", "init", "--service", v4.url, "--store", store, "--define", "Categories",
                         "--define=Products?$top=2", "--quiet", "--page-size=50")
    check("init with two --define", code == 0, f"{code} {err!r}")
    if code == 0:
        paths = [d["path"] for d in json.loads(out)["definingRequests"]]
        check("both defining requests, in order", paths == ["Categories", "Products?$top=2"], paths)
finally:
    v4.stop()

# The man pages: the same as man/ but for the date line.
pages = tempfile.mkdtemp(prefix="ods_cli_man_")
try:
    code, out, err = run("--generate-man-pages", pages)
    check("--generate-man-pages", code == 0 and out == "" and err == "", f"{code} {err!r}")
    made = sorted(os.listdir(pages))
    kept = sorted(f for f in os.listdir(os.path.join(ROOT, "man")) if f.endswith(".1"))
    check("one page per command, as in man/", made == kept and "odatastore.offline.init.1" in made, f"{made} {kept}")
    for name in made:
        with open(os.path.join(pages, name)) as f:
            new = [line for line in f.read().splitlines() if not line.startswith(".Dd ")]
        with open(os.path.join(ROOT, "man", name)) as f:
            old = [line for line in f.read().splitlines() if not line.startswith(".Dd ")]
        check(f"man/{name} is current (bash scripts/man.sh)", new == old, name)
    code, _, err = run("--generate-man-pages", "/nonexistent/dir")
    check("--generate-man-pages into a missing directory", code == 1 and "cannot write" in err, f"{code} {err!r}")
finally:
    shutil.rmtree(pages, ignore_errors=True)
    shutil.rmtree(work, ignore_errors=True)

passed, failed = results()
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
