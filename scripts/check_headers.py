#!/usr/bin/env python3
"""The public-API check: every public header compiles on its own, drags in no header it
should not, and every floe source includes only what the layer graph allows.

  scripts/check_headers.py --build build/debug [--jobs 2]
  scripts/check_headers.py --self-test

The layers and what each may include come from src/floe/layers.txt, the one place the
build reads them from too. A public header is any src/floe/<layer>/*.h whose name does not
end in _internal.h (cli/ and testing/ are not library API). Each is compiled alone
(`-fsyntax-only -H`, the library's own flags without its precompiled header, which would
hide a missing include) and the include tree the compiler prints is checked:
  * no third-party header other than Arrow/Parquet and the C++ standard library
    (nlohmann-json, SQLite, zlib, CLI11, GoogleTest, libpq, libcurl are implementation
    details of floe's .cc files);
  * no floe *_internal.h and nothing from floe/testing or floe/cli;
  * in the Arrow-light layers (the arrow-light line of layers.txt) a header names Arrow
    only through arrow/status.h and arrow/result.h, except the headers whose whole job is
    Arrow (ARROW_HEADERS below).
Every floe source, tests included, may include only its own layer, the layers layers.txt
says it builds on (and theirs, transitively) and util; tests may also include floe/testing.
A source in a folder that is not a layer is a finding. --self-test checks the checker: it
plants wrong includes and an unlisted folder in a scratch copy of the layer graph and fails
unless each is reported (no build needed).
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
LAYERS_FILE = SRC / "floe" / "layers.txt"
# Folders of src/floe that are not library layers.
NOT_LAYERS = {"cli", "testing"}


def read_layers(text):
    """layers.txt as ({layer: set of layers it may include}, Arrow-light layers), in file
    order. Each layer may include itself, util, what it names and what those may."""
    allowed, arrow_light = {}, set()
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        name, sep, rest = line.partition(":")
        name, names = name.strip(), rest.split()
        if not sep or not re.fullmatch(r"[a-z_]+(/[a-z_]+)*|arrow-light", name):
            raise SystemExit(f"layers.txt:{number}: expected '<folder>: <layers>', got {raw!r}")
        if name == "arrow-light":
            arrow_light.update(names)
            continue
        reach = {name, "util"}
        for below in names:
            if below not in allowed:
                raise SystemExit(f"layers.txt:{number}: {name} builds on {below}, which is "
                                 "not a layer listed above it")
            reach |= allowed[below]
        allowed[name] = reach
    return allowed, arrow_light


ALLOWED, ARROW_LIGHT = read_layers(LAYERS_FILE.read_text())
LAYERS = list(ALLOWED)
# Headers in Arrow-light layers whose job is converting to or from Arrow data.
ARROW_HEADERS = {"floe/types/arrow_schema.h", "floe/types/arrow_value.h", "floe/expr/row_filter.h"}
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


def layer_of(path):
    """The folder of a source below src/floe, as layers.txt names layers."""
    return path.parent.relative_to(SRC / "floe").as_posix()


def public_headers():
    for path in sorted((SRC / "floe").rglob("*.h")):
        if layer_of(path) in ALLOWED and not path.name.endswith("_internal.h"):
            yield path


def compiler_flags(build):
    """The floe library's compile flags, minus the precompiled header and output options."""
    commands = json.loads((build / "compile_commands.json").read_text())
    entry = next(e for e in commands if e["file"].endswith("/src/floe/types/schema.cc"))
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
    layer = layer_of(header)
    if layer in ARROW_LIGHT and name not in ARROW_HEADERS:
        for target in INCLUDE.findall(header.read_text()):
            if target.startswith(("arrow/", "parquet/")) and target not in ARROW_STATUS:
                findings.append(f"{name} is in the Arrow-light {layer} layer but includes {target}")
    return findings


def check_layers(sources, allowed):
    """Findings for includes the layer graph does not allow. `sources` yields (path below
    src/floe as text, file content)."""
    findings = []
    for relative, text in sources:
        folder = relative.rpartition("/")[0]
        top = folder.split("/")[0]
        if top in NOT_LAYERS:
            continue
        if folder not in allowed:
            findings.append(f"floe/{relative} is in folder '{folder}', which is not a layer of "
                            "src/floe/layers.txt")
            continue
        is_test = relative.endswith(("_test.cc", "_fuzz.cc", "_benchmark.cc"))
        for target in INCLUDE.findall(text):
            if not target.startswith("floe/") or target.count("/") < 2:
                continue
            target_layer = target[len("floe/"):].rpartition("/")[0]
            if target_layer.split("/")[0] == "testing" and is_test:
                continue
            if target_layer not in allowed:
                findings.append(f"floe/{relative} includes {target}, outside the library")
            elif target_layer not in allowed[folder]:
                findings.append(f"floe/{relative} ({folder}) includes {target}: {folder} does "
                                f"not build on {target_layer} in src/floe/layers.txt")
    return findings


def library_sources():
    for path in sorted((SRC / "floe").rglob("*")):
        if path.suffix in (".h", ".cc"):
            yield path.relative_to(SRC / "floe").as_posix(), path.read_text()


def self_test():
    """Plants what the check must catch and fails unless each is caught."""
    # The real layer graph: each format over the shared core, neither including the other.
    allowed, _ = read_layers(LAYERS_FILE.read_text())
    planted = {
        "a layer including one above it":
            ("iceberg/spec/planted.h", '#include "floe/iceberg/table/table.h"\n'),
        "Delta including Iceberg's commit":
            ("delta/planted.cc", '#include "floe/iceberg/commit/committer.h"\n'),
        "catalog-managed Delta including Iceberg's catalog":
            ("delta/catalog/planted.h", '#include "floe/iceberg/catalog/catalog.h"\n'),
        "Iceberg including Delta":
            ("iceberg/write/planted.cc", '#include "floe/delta/write.h"\n'),
        "the shared task layer including Iceberg's model":
            ("task/planted.cc", '#include "floe/iceberg/spec/table_metadata.h"\n'),
        "the shared types including Iceberg's partition specs":
            ("types/planted.h", '#include "floe/iceberg/spec/partition_spec.h"\n'),
        "the shared expressions including Delta's log":
            ("expr/planted.cc", '#include "floe/delta/log.h"\n'),
        "the shared task layer including the shared types (not below it)":
            ("task/planted.h", '#include "floe/types/schema.h"\n'),
        "the shared Parquet layer including Iceberg's manifests":
            ("parquet/planted.h", '#include "floe/iceberg/manifest/data_file.h"\n'),
        "a folder that is not a layer":
            ("iceberg2/planted.cc", '#include "floe/util/error.h"\n'),
        "library code including the CLI":
            ("iceberg/write/planted.cc", '#include "floe/cli/commands.h"\n'),
    }
    missed = [what for what, source in planted.items() if not check_layers([source], allowed)]
    fine = check_layers([("delta/fine.cc", '#include "floe/task/write_task.h"\n'
                                           '#include "floe/parquet/file_reader.h"\n'
                                           '#include "floe/expr/binder.h"\n'
                                           '#include "floe/types/arrow_schema.h"\n'
                                           '#include "floe/io/file_io.h"\n'),
                          ("iceberg/table/fine.cc", '#include "floe/iceberg/scan/table_scan.h"\n'
                                                    '#include "floe/task/write_task.h"\n'
                                                    '#include "floe/expr/row_filter.h"\n')],
                         allowed)
    for what in missed:
        print(f"self-test: {what} was not reported")
    for finding in fine:
        print(f"self-test: an allowed include was reported: {finding}")
    print(f"self-test: {len(planted) - len(missed)} of {len(planted)} planted faults reported")
    return 1 if missed or fine else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", type=pathlib.Path)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--self-test", action="store_true")
    options = parser.parse_args()
    if options.self_test:
        return self_test()
    if options.build is None:
        parser.error("--build is required")
    compiler, flags = compiler_flags(options.build.resolve())
    headers = list(public_headers())
    findings = check_layers(library_sources(), ALLOWED)
    with concurrent.futures.ThreadPoolExecutor(options.jobs) as pool:
        for result in pool.map(lambda h: check_header(compiler, flags, h), headers):
            findings.extend(result)
    for finding in findings:
        print(finding)
    print(f"checked {len(headers)} public headers: {len(findings)} finding(s)")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
