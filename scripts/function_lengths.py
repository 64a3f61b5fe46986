#!/usr/bin/env python3
"""Lengths of the functions in floe's C++ sources, from the line that names a function to
the line of its closing brace, found by matching braces outside comments, strings and
character literals. A function body is a brace block that follows a parameter list (a
closing parenthesis, then only qualifiers such as const, noexcept, override or a trailing
return type) whose opening parenthesis does not follow a control keyword or a lambda's
capture list, and that lies directly in a namespace, class or struct (lambdas and nested
blocks count toward their function).

    scripts/function_lengths.py [--list N] [--max-over-200 A] [--max-over-100 B] [paths...]

Prints how many functions are over 100 and over 200 lines (and, with --list, the N
longest). With --max-over-* it fails when a count is above the limit: `make lint` runs it
with the counts the code has, so that none can grow (issue 50 asks for 0 over 200 and at
most 15 over 100 once the Delta write is split)."""

from __future__ import annotations

import argparse
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
CONTROL = {"if", "for", "while", "switch", "catch", "return", "sizeof", "decltype",
           "alignof", "noexcept", "requires", "static_assert", "defined"}
QUALIFIERS = re.compile(r"^(\s|const|noexcept|override|final|mutable|volatile|&|&&|"
                        r"->\s*[\w:<>,\s*&]+|try)*$")
# Bodies of the blocks that contain functions: namespaces, classes, structs, extern "C".
CONTAINER = re.compile(r"\b(namespace|class|struct|union|enum)\b[^;{}()]*$|extern\s+\"C\"\s*$")


def strip(text: str) -> str:
    """`text` with comments, string and character literals blanked (newlines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            out.append(" " * (end - i))
            i = end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
        elif c == "R" and text.startswith('R"', i):
            match = re.match(r'R"([^(\s]*)\(', text[i:])
            if not match:
                out.append(c)
                i += 1
                continue
            close = ")" + match.group(1) + '"'
            end = text.find(close, i + match.end())
            end = n if end < 0 else end + len(close)
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
        elif c in "\"'":
            if c == "'" and i > 0 and (text[i - 1].isalnum()) and text[i - 1] != "u":
                # A digit separator (1'000'000), not a character literal.
                out.append(" ")
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(re.sub(r"[^\n]", " ", text[i:j + 1]))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(path: pathlib.Path):
    """(name, first line, last line) of each function defined in `path`."""
    text = strip(path.read_text())
    stack = []  # for each open brace: "container", "function" or "block"
    starts = []  # (name, line) of the open function bodies
    found = []
    line = 1
    for i, c in enumerate(text):
        if c == "\n":
            line += 1
        elif c == "{":
            before = text[:i]
            kind = "block"
            if all(k == "container" for k in stack):
                head = before[max(before.rfind(";"), before.rfind("}"), before.rfind("{")) + 1:]
                if CONTAINER.search(head.strip()) or head.strip().endswith("="):
                    kind = "container" if CONTAINER.search(head.strip()) else "block"
                else:
                    close = before.rstrip()
                    # Skip qualifiers back to the parameter list's ')'.
                    k = len(close)
                    while k > 0 and close[k - 1] != ")":
                        k -= 1
                    if k > 0 and QUALIFIERS.match(close[k:]) is not None:
                        depth, j = 0, k - 1
                        while j >= 0:
                            if close[j] == ")":
                                depth += 1
                            elif close[j] == "(":
                                depth -= 1
                                if depth == 0:
                                    break
                            j -= 1
                        name = re.search(r"([~\w:<>]+)\s*$", close[:j])
                        if name and name.group(1).split("::")[-1] not in CONTROL:
                            kind = "function"
                            starts.append((name.group(1), before.count("\n", 0, j) + 1))
            stack.append(kind)
        elif c == "}" and stack:
            if stack.pop() == "function":
                name, first = starts.pop()
                found.append((name, first, line))
    return found


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("paths", nargs="*", default=["src", "python/src"])
    parser.add_argument("--list", type=int, default=0)
    parser.add_argument("--max-over-200", type=int)
    parser.add_argument("--max-over-100", type=int)
    args = parser.parse_args()
    lengths = []
    for root in args.paths:
        for path in sorted((ROOT / root).rglob("*")):
            if path.suffix not in (".cc", ".h") or path.name.endswith(("_test.cc", "_fuzz.cc")):
                continue
            for name, first, last in functions(path):
                lengths.append((last - first + 1, f"{path.relative_to(ROOT)}:{first}", name))
    lengths.sort(reverse=True)
    over_200 = sum(1 for length, _, _ in lengths if length > 200)
    over_100 = sum(1 for length, _, _ in lengths if length > 100)
    print(f"functions: {len(lengths)}; over 100 lines: {over_100}; over 200 lines: {over_200}")
    for length, where, name in lengths[:args.list]:
        print(f"  {length:5d}  {where}  {name}")
    failed = False
    if args.max_over_200 is not None and over_200 > args.max_over_200:
        print(f"function_lengths: {over_200} functions over 200 lines (at most {args.max_over_200})")
        failed = True
    if args.max_over_100 is not None and over_100 > args.max_over_100:
        print(f"function_lengths: {over_100} functions over 100 lines (at most {args.max_over_100})")
        failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
