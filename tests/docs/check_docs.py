#!/usr/bin/env python3
"""The reference pages stay pages a user reads in minutes, and their links lead somewhere.

Checks, for README.md and the tools' reference pages (docs/embed-train.md, embed-query.md,
glove-convert.md, GPU.md, python.md, mpirun.md):
  - no paragraph is longer than 600 characters. A paragraph is what a reader takes in at once:
    a block of prose between blank lines, one item of a list (its continuation lines included),
    one row of a table, a heading. Fenced code blocks are not paragraphs and are not counted;
  - docs/embed-train.md is at most 30,000 bytes;
and, for every Markdown page in the repository's root, docs/ and bench/:
  - every relative link names a file that exists, and every #anchor one of its headings
    (GitHub's rule: lower case, punctuation dropped, spaces to hyphens, -1, -2 for repeats)
    or an explicit <a id="...">.
With --help TOOL=PATH (repeatable): every long option that `PATH --help` (and, for embed-query,
`PATH eval --help` and `PATH map --help`) lists appears, as `--name`, in docs/TOOL.md.

Usage: check_docs.py REPO_ROOT [--help TOOL=PATH ...]
Exit 0: all true; 1: one line per problem (file, line, what was expected).
"""
import pathlib
import re
import subprocess
import sys

MAX_PARAGRAPH = 600
SIZE_LIMITS = {"docs/embed-train.md": 30_000}
REFERENCE_PAGES = ["README.md", "docs/embed-train.md", "docs/embed-query.md", "docs/glove-convert.md", "docs/GPU.md",
                   "docs/python.md", "docs/mpirun.md"]
# Subcommands whose options have their own --help (embed-query eval|map ...).
SUBCOMMANDS = {"embed-query": ["eval", "map"]}

LIST_ITEM = re.compile(r"^(\s*)([-*+]|\d+[.)])\s+")
FENCE = re.compile(r"^\s*(```|~~~)")
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)|!\[[^\]]*\]\(([^)\s]+)\)")
ANCHOR_TAG = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"")


def units(lines):
    """(first line number, text) of each paragraph, list item, table row and heading."""
    out = []
    in_fence = False
    current = None  # [start line, [lines], kind]

    def flush():
        nonlocal current
        if current:
            out.append((current[0], " ".join(s.strip() for s in current[1])))
        current = None

    for number, line in enumerate(lines, 1):
        if FENCE.match(line):
            flush()
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        if not line.strip():
            flush()
            continue
        stripped = line.strip()
        if stripped.startswith("|") or stripped.startswith("#"):
            flush()
            out.append((number, stripped))
            continue
        if LIST_ITEM.match(line):
            flush()
            current = [number, [line], "item"]
            continue
        if current is None:
            current = [number, [line], "prose"]
        else:
            current[1].append(line)
    flush()
    return out


def slug(heading):
    text = re.sub(r"<[^>]+>", "", heading)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link in a heading: its text
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path):
    seen = {}
    found = set()
    in_fence = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        found.update(ANCHOR_TAG.findall(line))
        match = re.match(r"^(#{1,6})\s+(.*?)\s*#*\s*$", line)
        if match:
            base = slug(match.group(2))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return found


def check_links(root, page, problems):
    in_fence = False
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
        if FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        line = re.sub(r"`[^`]*`", "", line)  # code spans are not links
        for match in LINK.finditer(line):
            target = match.group(1) or match.group(2)
            if re.match(r"^[a-z]+:", target):  # http:, https:, mailto:
                continue
            file_part, _, anchor = target.partition("#")
            linked = page if not file_part else (page.parent / file_part)
            rel = page.relative_to(root)
            if not linked.exists():
                problems.append(f"{rel}:{number}: link to {target}: {file_part} does not exist")
                continue
            if anchor and linked.suffix == ".md" and anchor not in anchors(linked):
                problems.append(f"{rel}:{number}: link to {target}: {linked.relative_to(root)} has no heading "
                                f"or <a id> for #{anchor}")


def long_options(tool, path):
    options = set()
    for sub in [[]] + [[s] for s in SUBCOMMANDS.get(tool, [])]:
        result = subprocess.run([path, *sub, "--help"], capture_output=True, text=True, check=False)
        options.update(re.findall(r"(?<![\w-])--([a-z][a-z0-9-]+)", result.stdout))
    return options


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    root = pathlib.Path(argv[1]).resolve()
    helps = []
    rest = argv[2:]
    while rest:
        if rest[0] == "--help" and len(rest) > 1 and "=" in rest[1]:
            helps.append(rest[1].split("=", 1))
            rest = rest[2:]
        else:
            sys.exit(f"check_docs.py: unexpected argument {rest[0]}\n{__doc__}")

    problems = []
    for name in REFERENCE_PAGES:
        page = root / name
        for number, text in units(page.read_text(encoding="utf-8").splitlines()):
            if len(text) > MAX_PARAGRAPH:
                problems.append(f"{name}:{number}: a paragraph of {len(text)} characters, more than "
                                f"{MAX_PARAGRAPH} (split it, or move the history to bench/RESULTS.md): "
                                f"{text[:70]}...")
    for name, limit in SIZE_LIMITS.items():
        size = (root / name).stat().st_size
        if size > limit:
            problems.append(f"{name}: {size} bytes, more than {limit}")
    pages = sorted([*root.glob("*.md"), *root.glob("docs/**/*.md"), *root.glob("bench/*.md")])
    for page in pages:
        check_links(root, page, problems)
    for tool, path in helps:
        text = (root / "docs" / f"{tool}.md").read_text(encoding="utf-8")
        for option in sorted(long_options(tool, path)):
            if option == "help":
                continue
            if not re.search(rf"--{re.escape(option)}(?![\w-])", text):
                problems.append(f"docs/{tool}.md: --{option} (in `{tool} --help`) is not described")
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
