#!/usr/bin/env python3
"""The C++ sources are formatted as .clang-format says: clang-format --dry-run over every
.cpp, .hpp, .h and .cu file of sdk/, host/, plugins/, tests/, examples/ and tools/ must
change nothing. On failure it names each file and the first lines clang-format would
change; `scripts/format` rewrites them.

usage: format_test.py SOURCE_DIR [CLANG_FORMAT]
"""
import shutil
import subprocess
import sys
from pathlib import Path

FOLDERS = ["sdk", "host", "plugins", "tests", "examples", "tools"]
SUFFIXES = {".cpp", ".hpp", ".h", ".cu"}


def sources(root: Path) -> list[Path]:
    found = []
    for folder in FOLDERS:
        for path in (root / folder).rglob("*"):
            if path.suffix in SUFFIXES and path.is_file():
                found.append(path)
    return sorted(found)


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    root = Path(sys.argv[1]).resolve()
    tool = sys.argv[2] if len(sys.argv) > 2 else "clang-format"
    if shutil.which(tool) is None:
        print(f"{tool} is not installed (Debian: apt-get install clang-format; scripts/test installs it)",
              file=sys.stderr)
        return 1
    if not (root / ".clang-format").is_file():
        print(f"{root}/.clang-format: missing", file=sys.stderr)
        return 1
    files = sources(root)
    unformatted = []
    for path in files:
        formatted = subprocess.run([tool, "--style=file", str(path)], capture_output=True, text=True, check=True).stdout
        original = path.read_text()
        if formatted != original:
            unformatted.append((path, original.splitlines(), formatted.splitlines()))
    for path, before, after in unformatted:
        line = next((i for i, (a, b) in enumerate(zip(before, after)) if a != b), min(len(before), len(after)))
        print(f"{path.relative_to(root)}:{line + 1}: not formatted as .clang-format says", file=sys.stderr)
        if line < len(before):
            print(f"    is:     {before[line]}", file=sys.stderr)
        if line < len(after):
            print(f"    wanted: {after[line]}", file=sys.stderr)
    print(f"{len(files)} files checked, {len(unformatted)} not formatted")
    return 1 if unformatted else 0


if __name__ == "__main__":
    sys.exit(main())
