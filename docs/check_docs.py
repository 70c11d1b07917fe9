#!/usr/bin/env python3
"""Checks the documentation: links resolve, code snippets compile.

  check_docs.py links
      Every relative link of README.md and docs/**/*.md names a file or
      directory that exists and, with a #fragment, a heading of that page
      (GitHub's anchors).

  check_docs.py snippets --cc CC --cxx CXX --include DIR
      A code block of docs/*.md that follows an `<!-- excerpt: PATH -->` line
      (any language) must be a verbatim run of lines of PATH (indentation
      aside), so that the docs cannot diverge from the example, header or
      pattern file they quote. Every other ```c and ```cpp block must be a
      whole translation unit that compiles (-fsyntax-only, warnings as
      errors) against the public headers.

Exits 0 when everything holds; otherwise prints each problem as
`file:line: what` and exits 1.
"""

import argparse
import re
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FENCE = re.compile(r"^(\s*)(```+|~~~+)\s*([\w+-]*)")
LINK = re.compile(r"(?<!!)\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
EXCERPT = re.compile(r"^<!--\s*excerpt:\s*(\S+)\s*-->$")


def markdown_files(include_readme=True):
    files = sorted((ROOT / "docs").rglob("*.md"))
    if include_readme:
        files.insert(0, ROOT / "README.md")
    return files


def blocks_and_prose(lines):
    """Yields (line number, line, fence info or None) for each line; info is
    the fenced block's language for lines inside a block, None outside."""
    fence = None
    info = None
    for number, line in enumerate(lines, 1):
        match = FENCE.match(line)
        if fence is None and match:
            fence, info = match.group(2), match.group(3)
            yield number, line, "fence"
            continue
        if fence is not None and line.strip().startswith(fence[0] * len(fence)) and \
                line.strip().strip(fence[0]) == "":
            fence = None
            yield number, line, "fence"
            continue
        yield number, line, info if fence is not None else None


def github_anchor(heading):
    """GitHub's anchor for a heading's text."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links: their text
    text = text.replace("`", "").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


ANCHORS = {}  # page -> the anchors of its headings


def anchors_of(path):
    """The anchors a link may name on `path` (computed once per page)."""
    cache = ANCHORS
    if path not in cache:
        anchors = set()
        counts = {}
        for _, line, info in blocks_and_prose(path.read_text(encoding="utf-8").splitlines()):
            if info is not None:
                continue
            match = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
            if not match:
                continue
            anchor = github_anchor(match.group(1))
            count = counts.get(anchor, 0)
            counts[anchor] = count + 1
            anchors.add(anchor if count == 0 else f"{anchor}-{count}")
        # Explicit anchors (<a id="...">, <a name="...">).
        for match in re.finditer(r"<a\s+(?:id|name)=\"([^\"]+)\"", path.read_text(encoding="utf-8")):
            anchors.add(match.group(1))
        cache[path] = anchors
    return cache[path]


def check_links():
    problems = []
    checked = 0
    for path in markdown_files():
        lines = path.read_text(encoding="utf-8").splitlines()
        for number, line, info in blocks_and_prose(lines):
            if info is not None:
                continue
            prose = re.sub(r"`[^`]*`", "", line)  # links inside code spans are text
            for match in LINK.finditer(prose):
                target = match.group(1)
                if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
                    continue
                checked += 1
                file_part, _, fragment = target.partition("#")
                destination = (path.parent / file_part).resolve() if file_part else path
                where = f"{path.relative_to(ROOT)}:{number}"
                if not destination.exists():
                    problems.append(f"{where}: link to {target}: {file_part} does not exist")
                    continue
                if fragment:
                    if destination.is_dir() or destination.suffix != ".md":
                        problems.append(f"{where}: link to {target}: a #fragment needs a .md page")
                    elif fragment not in anchors_of(destination):
                        problems.append(
                            f"{where}: link to {target}: {destination.relative_to(ROOT)} has no "
                            f"heading with the anchor #{fragment}")
    return problems, f"{checked} relative links"


def snippet_blocks(path):
    """Yields (first line number, language, text, excerpt source or None)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    block = None
    previous = ""
    for number, line, info in blocks_and_prose(lines):
        if info == "fence":
            if block is None:
                match = FENCE.match(line)
                excerpt = EXCERPT.match(previous.strip())
                block = (number + 1, match.group(3), [], excerpt.group(1) if excerpt else None)
            else:
                yield block[0], block[1], "\n".join(block[2]) + "\n", block[3]
                block = None
            continue
        if block is not None:
            block[2].append(line)
        elif line.strip():
            previous = line


def is_excerpt(text, source):
    wanted = textwrap.dedent(text).rstrip("\n").splitlines()
    lines = source.read_text(encoding="utf-8").splitlines()
    for start in range(len(lines) - len(wanted) + 1):
        candidate = textwrap.dedent("\n".join(lines[start:start + len(wanted)])).splitlines()
        if [l.rstrip() for l in candidate] == [l.rstrip() for l in wanted]:
            return True
    return False


def check_snippets(cc, cxx, include):
    problems = []
    compiled = excerpts = 0
    with tempfile.TemporaryDirectory() as work:
        for path in markdown_files(include_readme=False):
            if path.parent.name == "ir":
                continue  # generated from the ODS; its examples are MLIR
            for line, language, text, source in snippet_blocks(path):
                if language not in ("c", "cpp", "c++") and not source:
                    continue
                where = f"{path.relative_to(ROOT)}:{line}"
                if source:
                    excerpts += 1
                    if not (ROOT / source).is_file():
                        problems.append(f"{where}: the excerpt's source {source} does not exist")
                    elif not is_excerpt(text, ROOT / source):
                        problems.append(
                            f"{where}: this block is not a verbatim excerpt of {source}; copy it "
                            f"again from the file")
                    continue
                compiled += 1
                c = language == "c"
                snippet = Path(work) / f"snippet{compiled}.{'c' if c else 'cpp'}"
                snippet.write_text(text, encoding="utf-8")
                command = [cc if c else cxx, "-std=c11" if c else "-std=c++20", "-fsyntax-only",
                           "-Wall", "-Wextra", "-Werror", "-I", include, str(snippet)]
                result = subprocess.run(command, capture_output=True, text=True)
                if result.returncode != 0:
                    message = result.stderr.replace(str(snippet), "snippet")
                    problems.append(f"{where}: the {language} block does not compile:\n{message}")
    return problems, f"{compiled} compiled snippets, {excerpts} excerpts"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("check", choices=["links", "snippets"])
    parser.add_argument("--cc", default="cc")
    parser.add_argument("--cxx", default="c++")
    parser.add_argument("--include", default=str(ROOT / "include"))
    arguments = parser.parse_args()
    if arguments.check == "links":
        problems, summary = check_links()
    else:
        problems, summary = check_snippets(arguments.cc, arguments.cxx, arguments.include)
    for problem in problems:
        print(problem)
    if problems:
        print(f"check_docs.py {arguments.check}: {len(problems)} problem(s) ({summary})")
        return 1
    print(f"check_docs.py {arguments.check}: ok ({summary})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
