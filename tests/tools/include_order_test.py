#!/usr/bin/env python3
"""The host's folders depend one way: each file of host/src/<folder>/ includes, of the
host's own headers, only those of its folder and of the folders below it in LAYERS
(docs/architecture.md, "Layers"). Fails naming each include that points up, with its
file and line, and any folder of host/src missing from LAYERS.

Usage: include_order_test.py SOURCE_DIR     (the repository's root)
Exit status: 0 when every include points down, 1 otherwise.
"""

import re
import sys
from pathlib import Path

# Bottom first. A folder may include itself and the folders before it.
LAYERS = ["util", "model", "config", "json", "analysis", "discover", "plan", "history", "bisect", "execute",
          "run", "report", "cli", "commands"]

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"/]+)/[^"]+"')


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-3], file=sys.stderr)
        return 2
    src = Path(sys.argv[1]) / "host" / "src"
    rank = {folder: i for i, folder in enumerate(LAYERS)}
    problems = []
    for folder in sorted(p.name for p in src.iterdir() if p.is_dir()):
        if folder not in rank:
            problems.append(f"host/src/{folder}/: not in the layer order of {Path(__file__).name} (LAYERS)")
    files = 0
    for path in sorted(src.rglob("*")):
        if path.suffix not in (".cpp", ".hpp", ".in") or not path.is_file():
            continue
        relative = path.relative_to(src)
        own = relative.parts[0] if len(relative.parts) > 1 else None  # main.cpp: above every folder
        files += 1
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            match = INCLUDE.match(line)
            if not match or match.group(1) not in rank or match.group(1) == own:
                continue
            target = match.group(1)
            if own is not None and own in rank and rank[target] > rank[own]:
                below = ", ".join(LAYERS[:rank[own]]) or "none"
                header = line.split('"')[1]
                problems.append(f"host/src/{relative}:{number}: includes {header}: {own}/ is below {target}/ "
                                f"(it may include {below})")
    for problem in problems:
        print(problem)
    print(f"include_order_test: {files} files, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
