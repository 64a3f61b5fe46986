#!/usr/bin/env python3
"""The public-API check: every public header compiles on its own, drags in no header it
should not, and every floe source respects the layer order of DESIGN.md.

  scripts/check_headers.py --build build/debug [--jobs 2]

A public header is any src/floe/<layer>/*.h whose name does not end in _internal.h (cli/
and testing/ are not library API). Each is compiled alone (`-fsyntax-only -H`, the
library's own flags without its precompiled header, which would hide a missing include)
and the include tree the compiler prints is checked:
  * no third-party header other than Arrow/Parquet and the C++ standard library
    (nlohmann-json, SQLite, zlib, CLI11, GoogleTest, libpq, libcurl are implementation
    details of floe's .cc files);
  * no floe *_internal.h and nothing from floe/testing or floe/cli;
  * in the Arrow-light layers (DESIGN.md: spec, avro, manifest, expr, catalog, commit) a
    header names Arrow only through arrow/status.h and arrow/result.h, except the headers
    whose whole job is Arrow (ARROW_HEADERS below).
Exit status 1 and one line per finding when anything is wrong.
"""

import argparse
import concurrent.futures
import json
import pathlib
import re
import shlex
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SRC = ROOT / "src"
LAYERS = "util spec avro manifest transform expr io write gate catalog commit scan table".split()
ARROW_LIGHT = {"spec", "avro", "manifest", "expr", "catalog", "commit"}
# Headers in Arrow-light layers whose job is converting to or from Arrow data.
ARROW_HEADERS = {"floe/spec/arrow_schema.h", "floe/spec/arrow_value.h", "floe/expr/row_filter.h"}
ARROW_STATUS = {"arrow/status.h", "arrow/result.h"}
# Third-party headers that must stay inside floe's .cc files, matched on the included path.
FORBIDDEN = [
    (re.compile(r"/nlohmann/"), "nlohmann-json"),
    (re.compile(r"/sqlite3\.h$"), "SQLite"),
    (re.compile(r"/zlib\.h$"), "zlib"),
    (re.compile(r"/CLI/"), "CLI11"),
    (re.compile(r"/(gtest|gmock)/"), "GoogleTest"),
    (re.compile(r"/libpq-fe\.h$"), "libpq"),
    (re.compile(r"/curl/"), "libcurl"),
    (re.compile(r"/src/floe/.*_internal\.h$"), "a floe _internal header"),
    (re.compile(r"/src/floe/(testing|cli)/"), "floe test or CLI code"),
]
INCLUDE = re.compile(r'^\s*#\s*include\s+[<"]([^>"]+)[>"]', re.MULTILINE)


def public_headers():
    for path in sorted((SRC / "floe").glob("*/*.h")):
        layer = path.parent.name
        if layer in LAYERS and not path.name.endswith("_internal.h"):
            yield path


def compiler_flags(build):
    """The floe library's compile flags, minus the precompiled header and output options."""
    commands = json.loads((build / "compile_commands.json").read_text())
    entry = next(e for e in commands if e["file"].endswith("/src/floe/spec/schema.cc"))
    args = shlex.split(entry["command"]) if "command" in entry else list(entry["arguments"])
    flags, skip = [], False
    for arg in args[1:]:
        if skip:
            skip = False
            continue
        if arg in ("-o", "-c", "-include", "-MF", "-MT", "-MQ"):
            skip = True
            continue
        if arg.startswith("-fsanitize") or arg in ("-Winvalid-pch", "-MD", "-MMD"):
            continue
        if arg.endswith(".cc"):
            continue
        flags.append(arg)
    return args[0], flags


def check_header(compiler, flags, header):
    name = header.relative_to(SRC).as_posix()
    source = f'#include "{name}"\n'
    result = subprocess.run([compiler, *flags, "-fsyntax-only", "-H", "-x", "c++", "-"],
                            input=source, capture_output=True, text=True)
    findings = []
    if result.returncode != 0:
        first = next((l for l in result.stderr.splitlines() if ": error:" in l),
                     result.stderr[-300:])
        findings.append(f"{name} does not compile on its own: {first.strip()}")
    reported = set()  # one finding per kind of offence, naming the first file that did it
    for line in result.stderr.splitlines():
        match = re.match(r"^\.+ (.+)$", line)
        if not match:
            continue
        included = str(pathlib.Path(match.group(1)).resolve())
        for pattern, what in FORBIDDEN:
            if pattern.search(included) and what not in reported:
                reported.add(what)
                findings.append(f"{name} includes {what} ({included})")
    layer = header.parent.name
    if layer in ARROW_LIGHT and name not in ARROW_HEADERS:
        for target in INCLUDE.findall(header.read_text()):
            if target.startswith(("arrow/", "parquet/")) and target not in ARROW_STATUS:
                findings.append(f"{name} is in the Arrow-light {layer} layer but includes {target}")
    return findings


def check_layers():
    """A layer includes only the layers before it (util is below everything)."""
    rank = {layer: i for i, layer in enumerate(LAYERS)}
    findings = []
    for path in sorted((SRC / "floe").glob("*/*")):
        layer = path.parent.name
        if layer not in rank or path.suffix not in (".h", ".cc"):
            continue
        for target in INCLUDE.findall(path.read_text()):
            parts = target.split("/")
            if len(parts) < 3 or parts[0] != "floe":
                continue
            if parts[1] == "testing" and path.name.endswith(("_test.cc", "_fuzz.cc")):
                continue
            if parts[1] not in rank:
                findings.append(f"{path.relative_to(SRC)} includes {target}, outside the library")
            elif rank[parts[1]] > rank[layer]:
                findings.append(f"{path.relative_to(SRC)} ({layer}) includes {target} from the "
                                f"higher {parts[1]} layer")
    return findings


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", required=True, type=pathlib.Path)
    parser.add_argument("--jobs", type=int, default=2)
    options = parser.parse_args()
    compiler, flags = compiler_flags(options.build.resolve())
    headers = list(public_headers())
    findings = check_layers()
    with concurrent.futures.ThreadPoolExecutor(options.jobs) as pool:
        for result in pool.map(lambda h: check_header(compiler, flags, h), headers):
            findings.extend(result)
    for finding in findings:
        print(finding)
    print(f"checked {len(headers)} public headers: {len(findings)} finding(s)")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
