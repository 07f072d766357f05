#!/usr/bin/env python3
"""The code's folders include each other only in the order docs/ARCHITECTURE.md states.

ARCHITECTURE.md holds the order as a fenced block between the markers
<!-- layers:begin --> and <!-- layers:end -->: one line per layer, highest first, the
folders of a layer separated by spaces (lib/ folders by their name, the others by their
path: kernels/common, apps). A folder may include headers of the folders on the lines
below its own, and of its own folder; nothing else. And no lib/ folder includes kernels/
except backend (the registry that hands the CUDA code to the tools), whatever its line.

Every #include "..." in apps/, lib/ and kernels/ is checked; an include with no folder
in its path ("foo.h") is the file's own folder's. Because the order is read from the
page a newcomer reads, the page cannot go stale without this test failing.

Usage: check_layers.py [REPO_ROOT]   (exit 0: in order; 1: a list of the includes that
are not, each with its file and line)
"""
import pathlib
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
SOURCES = (".h", ".hpp", ".cpp", ".cu", ".cuh")


def read_layers(architecture_md):
    """The layers, highest first, as lists of folder names, from ARCHITECTURE.md's block."""
    text = architecture_md.read_text(encoding="utf-8")
    match = re.search(r"<!-- layers:begin -->\s*```[^\n]*\n(.*?)```\s*<!-- layers:end -->", text, re.S)
    if not match:
        sys.exit(f"{architecture_md}: no layers block (<!-- layers:begin --> ``` ... ``` <!-- layers:end -->)")
    layers = []
    for line in match.group(1).splitlines():
        line = line.split("#", 1)[0].strip()  # a comment may follow a layer
        if line:
            layers.append(line.split())
    return layers


def folder_of(root, path):
    """The layer folder a source file belongs to: "apps", "kernels/<sub>" or lib's "<sub>"."""
    parts = path.relative_to(root).parts
    if parts[0] == "apps":
        return "apps"
    if parts[0] == "kernels":
        return "kernels/" + parts[1] if len(parts) > 2 else "kernels"
    return parts[1]  # lib/<folder>/...


def included_folder(include, own, lib_folders):
    """The folder an include names: lib's "<folder>/x.h", "kernels/<sub>/x.h", or none (own or system-like)."""
    parts = include.split("/")
    if len(parts) == 1:
        return own
    if parts[0] == "kernels" and len(parts) > 2:
        return "kernels/" + parts[1]
    if parts[0] in lib_folders:
        return parts[0]
    return own  # apps/common's "common/x.h", kernels' generated "cuda_architectures.h" and the like


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    layers = read_layers(root / "docs" / "ARCHITECTURE.md")
    height = {folder: len(layers) - i for i, layer in enumerate(layers) for folder in layer}
    lib_folders = {p.name for p in (root / "lib").iterdir() if p.is_dir()}
    code_folders = {"apps"} | lib_folders | {"kernels/" + p.name for p in (root / "kernels").iterdir() if p.is_dir()}
    problems = [f"docs/ARCHITECTURE.md: the layers block lacks the folder {f}" for f in sorted(code_folders - height.keys())]
    problems += [f"docs/ARCHITECTURE.md: the layers block names {f}, which is no folder" for f in sorted(height.keys() - code_folders)]
    checked = 0
    for top in ("apps", "lib", "kernels"):
        for path in sorted((root / top).rglob("*")):
            if path.suffix not in SOURCES or not path.is_file():
                continue
            own = folder_of(root, path)
            for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
                match = INCLUDE.match(line)
                if not match:
                    continue
                checked += 1
                target = included_folder(match.group(1), own, lib_folders)
                where = f"{path.relative_to(root)}:{number}"
                if target == own or own not in height or target not in height:
                    continue
                if top == "lib" and target.startswith("kernels/") and own != "backend":
                    problems.append(f"{where}: lib/{own} includes {match.group(1)}: only lib/backend reaches kernels/")
                elif height[target] >= height[own]:
                    problems.append(f"{where}: {own} includes {match.group(1)}, but {target} is not below {own} "
                                    "in docs/ARCHITECTURE.md's layers")
    for problem in problems:
        print(problem)
    print(f"check_layers: {checked} includes in apps/, lib/ and kernels/, {len(problems)} out of order")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
