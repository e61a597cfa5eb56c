#!/usr/bin/env python3
"""Every header and library that building what a run needs uses comes from the Debian
packages that scripts/bench installs, or from what they pull in.

scripts/lib/setup.sh keeps two package sets: bench_run_packages (scripts/bench: build and
run) and bench_test_packages (scripts/test adds them). A header of a test-only package
included by the host, or a library of one linked by a plugin, builds on a developer's
machine, where both sets are installed, and fails on a user's, where only the first is.
This test reads, from a Ninja build folder, the commands of the target bench_run (what
scripts/bench builds) and the headers each of its objects included (Ninja's deps log),
asks dpkg which package owns each system file, and fails naming every file whose package
is neither in the run set nor a dependency, direct or not, of one in it.

Files outside Debian's packages are not judged: the build folder, the source tree, the
project's venv (PyTorch, from the package index) and NVIDIA's CUDA toolkit, which these
machines come with.

    run_packages_test.py BUILD_DIR SETUP_SH [--without PACKAGE]...

--without drops a package from the run set, to show the check fails when the set lacks
one that the build uses.

Exit 0: every file accounted for; 1: files of other packages (listed); 77: cannot judge
(not a Ninja build, no dpkg), with the reason.
"""
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

SKIP = 77


def run_packages(setup_sh):
    """The bench_run_packages array of setup.sh, as bash reads it."""
    out = subprocess.run(["bash", "-c", 'source "$1" && printf "%s\\n" "${bench_run_packages[@]}"', "bash", setup_sh],
                         check=True, capture_output=True, text=True).stdout
    return [p for p in out.split() if p]


def installed_packages():
    """name -> (depends, provides) for every installed package, from dpkg's status."""
    fmt = "${Package}\\t${Status}\\t${Pre-Depends}, ${Depends}\\t${Provides}\\n"
    out = subprocess.run(["dpkg-query", "-W", "-f", fmt], check=True, capture_output=True, text=True).stdout
    packages, providers = {}, {}
    for line in out.splitlines():
        name, status, depends, provides = (line.split("\t") + ["", "", ""])[:4]
        if not status.endswith(" installed"):
            continue
        names = []
        for clause in depends.split(","):
            # Alternatives: any installed one counts.
            names.append([re.sub(r"[\s(:].*", "", alt.strip()) for alt in clause.split("|") if alt.strip()])
        packages[name] = [n for n in names if n]
        for provided in provides.split(","):
            provided = re.sub(r"[\s(:].*", "", provided.strip())
            if provided:
                providers.setdefault(provided, []).append(name)
    return packages, providers


def closure(roots, packages, providers):
    """The installed packages that the roots pull in, the roots among them."""
    seen, todo = set(), list(roots)
    while todo:
        name = todo.pop()
        for candidate in [name] + providers.get(name, []):
            if candidate in packages and candidate not in seen:
                seen.add(candidate)
                for alternatives in packages[candidate]:
                    todo.extend(alternatives)
    return seen


def build_files(build_dir):
    """System files the commands of bench_run read: included headers and linked libraries."""
    commands = subprocess.run(["ninja", "-C", str(build_dir), "-t", "commands", "bench_run"], check=True,
                              capture_output=True, text=True).stdout.splitlines()
    objects, files = [], set()
    for command in commands:
        try:
            words = shlex.split(command)
        except ValueError:
            continue
        if "-c" in words and "-o" in words:
            objects.append(words[words.index("-o") + 1])
            continue
        for word in words:
            if word.startswith("/") and re.search(r"\.(so(\.[0-9.]+)?|a)$", word):
                files.add(word)
            elif word.startswith("-l") and len(word) > 2 and not word.startswith("-l:"):
                found = subprocess.run(["g++", f"-print-file-name=lib{word[2:]}.so"], capture_output=True,
                                       text=True).stdout.strip()
                if found.startswith("/"):
                    files.add(found)
    deps = subprocess.run(["ninja", "-C", str(build_dir), "-t", "deps"] + objects, check=True, capture_output=True,
                          text=True).stdout
    for line in deps.splitlines():
        if line.startswith("    "):
            files.add(line.strip())
    return len(objects), files


def judged(path, roots):
    """Whether dpkg should own this file (a system file of no excluded root)."""
    if not path.startswith("/"):
        return False
    real = os.path.realpath(path)
    return not any(real.startswith(root) or path.startswith(root) for root in roots)


def owners(paths):
    """path -> owning package. dpkg may know a file by its /usr-merged twin (/lib/...) or
    by the target of a link, so those are asked for the paths not found the first time."""
    variants = (lambda p: p, lambda p: re.sub(r"^/usr(/lib|/bin|/sbin)", r"\1", p), os.path.realpath)
    result = {}
    for variant in variants:
        asked = {}
        for path in paths:
            if path not in result:
                asked.setdefault(variant(path), []).append(path)
        names = list(asked)
        for i in range(0, len(names), 400):
            out = subprocess.run(["dpkg-query", "-S"] + names[i:i + 400], capture_output=True, text=True).stdout
            for line in out.splitlines():
                if line.startswith("diversion ") or ": " not in line:
                    continue
                package, name = line.split(": ", 1)
                for path in asked.get(name, []):
                    result.setdefault(path, package.split(",")[0].split(":")[0].strip())
    return result


def main():
    args = sys.argv[1:]
    without = [args[i + 1] for i in range(len(args) - 1) if args[i] == "--without"]
    args = [a for i, a in enumerate(args) if a != "--without" and (i == 0 or args[i - 1] != "--without")]
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    build_dir, setup_sh = Path(args[0]).resolve(), Path(args[1]).resolve()
    if not (build_dir / "build.ninja").is_file():
        print(f"SKIP: {build_dir} is not a Ninja build folder: the test reads Ninja's deps log")
        return SKIP
    if subprocess.run(["sh", "-c", "command -v dpkg-query"], capture_output=True).returncode != 0:
        print("SKIP: no dpkg-query: the package sets are Debian's")
        return SKIP

    source_dir = setup_sh.parents[2]
    excluded = [str(build_dir), str(source_dir), os.path.realpath(source_dir), "/usr/local/cuda", "/opt/"]
    excluded.append(os.path.realpath("/usr/local/cuda"))
    # The venv the build was configured with (BENCH_PYTHON), wherever it is.
    cache = (build_dir / "CMakeCache.txt").read_text(errors="replace")
    python = re.search(r"^BENCH_PYTHON:[A-Z]+=(.*)$", cache, re.M)
    if python and python.group(1):
        excluded.append(str(Path(python.group(1)).parent.parent))

    roots = [p for p in run_packages(setup_sh) if p not in without]
    packages, providers = installed_packages()
    for package in without:  # and nothing installed only for it, as on a machine without it
        packages.pop(package, None)
    missing = [p for p in roots if p not in packages and p not in providers]
    if missing:
        print(f"FAIL: packages of bench_run_packages are not installed: {' '.join(missing)}")
        return 1
    allowed = closure(roots, packages, providers)

    count, files = build_files(build_dir)
    if count == 0:
        print(f"FAIL: no compile command for bench_run in {build_dir} (is it configured?)")
        return 1
    system = sorted(f for f in files if judged(f, excluded))
    owned = owners(system)
    strangers = {}
    for path in system:
        package = owned.get(path)
        if package is None:
            continue  # a file of no package (made by hand); dpkg cannot say
        if package not in allowed:
            strangers.setdefault(package, []).append(path)
    print(f"bench_run: {count} objects, {len(system)} system files from "
          f"{len(set(owned.values()))} packages; the run set pulls in {len(allowed)} packages")
    if strangers:
        for package, paths in sorted(strangers.items()):
            shown = ", ".join(paths[:3]) + (f" and {len(paths) - 3} more" if len(paths) > 3 else "")
            print(f"FAIL: {package} is not in bench_run_packages (scripts/lib/setup.sh) nor pulled in by it, "
                  f"yet bench_run uses {shown}")
        return 1
    print("PASS: every system file bench_run uses comes from the run set")
    return 0


if __name__ == "__main__":
    sys.exit(main())
