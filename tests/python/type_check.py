"""The Python plugins and the guide's Python examples, type-checked by mypy against the
stubs of the benchhost module (sdk/python/package/benchhost/__init__.pyi); the stand-in
and `python -m benchhost.check` under mypy's strict checks.

    type_check.py SOURCE_DIR CACHE_DIR
        checks plugins/*/*_py/*.py, examples/python_plugins/*/*.py, each ```python block
        of docs/plugin-guide.md whose first line is "# plugins/<path>" (the blocks that
        tests/e2e/python_plugins_test.cpp runs), and the package's own modules
        (ctest python_type_check); exit 1 on any error, each named by its file and line
        (a guide block's by the guide's line)
    type_check.py SOURCE_DIR CACHE_DIR --expect-errors FILE
        checks FILE alone, which marks each line that must fail with a comment
        `# type error: <part of mypy's message>`: passes when mypy reports exactly those
        lines, with those messages (ctest python_type_check_finds_errors)

Plugins rarely annotate anything, and mypy checks nothing of an unannotated parameter,
so each file is checked as a copy in which the Context's parameters are annotated as
benchhost.Context: the parameter of a benchmark function (run_benchmark,
benchmark_<name>, run_<name> at module level) that a worker gives the Context, and any
parameter named ctx. The copy keeps the file's lines where they were (the annotation is
a string, and the import it names comes last).
"""

import ast
import os
import re
import subprocess
import sys
import tempfile

ALIAS = "_benchhost_type_check"
ANNOTATION = f': "{ALIAS}.Context"'
GUIDE = "docs/plugin-guide.md"
# The scenario's axes, which a benchmark function's parameters of those names get.
AXES = ("variant", "compile_mode", "batch_size", "dtype", "device", "threads")


def is_benchmark(name):
    return name == "run_benchmark" or any(name.startswith(p) and len(name) > len(p) for p in ("benchmark_", "run_"))


def context_parameter(function):
    """The parameter of a benchmark function that a worker gives the Context
    (sdk/python/benchhost_support.py, arguments): of the required parameters not named
    after an axis, the one, or the first when its name says Context; None for none."""
    args = function.args
    positional = args.posonlyargs + args.args
    required = positional[:len(positional) - len(args.defaults)]
    required += [a for a, default in zip(args.kwonlyargs, args.kw_defaults) if default is None]
    left = [a for a in required if a.arg not in AXES]
    if not left:
        return None
    first = left[0].arg.lower()
    if first == "c" or "ctx" in first or "context" in first or (len(left) == 1 and left[0] in positional):
        return left[0]
    return None


def annotate(source, filename):
    """The source with its Context parameters annotated, same lines."""
    tree = ast.parse(source, filename=filename)
    targets = []
    module_level = {id(node) for node in tree.body}
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        args = node.args
        positional = args.posonlyargs + args.args
        context = context_parameter(node) if id(node) in module_level and is_benchmark(node.name) else None
        for arg in positional + args.kwonlyargs:
            if arg.annotation is not None:
                continue
            if arg.arg == "ctx" or arg is context:
                targets.append((arg.end_lineno - 1, arg.end_col_offset))
    lines = source.splitlines(keepends=True)
    for line, column in sorted(targets, reverse=True):
        text = lines[line].encode()  # ast's columns are UTF-8 byte offsets
        lines[line] = (text[:column] + ANNOTATION.encode() + text[column:]).decode()
    text = "".join(lines)
    if not text.endswith("\n"):
        text += "\n"
    return text + f"import benchhost as {ALIAS}  # added by tests/python/type_check.py\n"


def guide_blocks(source_dir):
    """(path in the guide's first line, the block's text, the guide's line of its first line)."""
    with open(os.path.join(source_dir, GUIDE)) as f:
        guide = f.read()
    blocks = []
    at = guide.find("```python\n")
    while at != -1:
        start = at + len("```python\n")
        end = guide.find("```\n", start)
        block = guide[start:end]
        if block.startswith("# plugins/"):
            blocks.append((block.split("\n", 1)[0][2:], block, guide.count("\n", 0, start) + 1))
        at = guide.find("```python\n", end)
    return blocks


def run_mypy(source_dir, cache_dir, paths):
    env = dict(os.environ, MYPYPATH=os.path.join(source_dir, "sdk/python/package"))
    command = ["mypy", "--config-file", os.path.join(source_dir, "tests/python/mypy.ini"), "--cache-dir",
               cache_dir, "--show-error-codes", "--no-color-output", "--no-error-summary", *paths]
    result = subprocess.run(command, cwd=source_dir, env=env, capture_output=True, text=True)
    if result.returncode not in (0, 1):  # 2: mypy itself failed (a bad option, a crash)
        sys.stdout.write(result.stdout + result.stderr)
        raise SystemExit(f"FAIL: mypy exited {result.returncode}")
    return result.returncode, result.stdout + result.stderr


LINE = re.compile(r"^(?P<path>[^:\n]+):(?P<line>\d+):(?P<rest>.*)$")


def relabel(output, labels):
    """mypy's lines with each copy's path replaced by the original's (and line)."""
    out = []
    for text in output.splitlines():
        match = LINE.match(text)
        if match and os.path.abspath(match["path"]) in labels:
            name, offset = labels[os.path.abspath(match["path"])]
            text = f"{name}:{int(match['line']) + offset}:{match['rest']}"
        out.append(text)
    return out


def write_copy(folder, relative, source, origin):
    path = os.path.join(folder, relative)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(annotate(source, origin))
    return path


def check_all(source_dir, cache_dir):
    files = []  # (label, relative path of the copy, source, line offset)
    for pattern_dir, depth in (("plugins", 3), ("examples/python_plugins", 2)):
        root = os.path.join(source_dir, pattern_dir)
        for folder, _, names in sorted(os.walk(root)):
            for name in sorted(names):
                path = os.path.join(folder, name)
                relative = os.path.relpath(path, source_dir)
                parts = os.path.relpath(path, root).split(os.sep)
                if not name.endswith(".py") or len(parts) != depth:
                    continue
                if pattern_dir == "plugins" and not parts[1].endswith(("_py", "_jax")):
                    continue  # the model scripts of C++ plugins (gpt2_model.py, ...)
                with open(path) as f:
                    files.append((relative, relative, f.read(), 0))
    blocks = guide_blocks(source_dir)
    if len(blocks) < 4:
        raise SystemExit(f"FAIL: {GUIDE} has {len(blocks)} python blocks that start with '# plugins/'; expected 4 or more")
    for path, block, line in blocks:
        files.append((GUIDE, os.path.join("guide", path), block, line - 1))
    with tempfile.TemporaryDirectory(prefix="benchhost-type-check-") as folder:
        labels, groups = {}, []
        for label, relative, source, offset in files:
            copy = write_copy(folder, relative, source, label)
            labels[os.path.abspath(copy)] = (label, offset)
            # Each copy is a top-level module named after its file: one mypy run per
            # set of distinct names.
            name = os.path.basename(copy)
            group = next((g for g in groups if name not in {os.path.basename(p) for p in g}), None)
            if group is None:
                group = []
                groups.append(group)
            group.append(copy)
        package = os.path.join(source_dir, "sdk/python/package/benchhost")
        groups[0] += [os.path.join(package, "_standin.py"), os.path.join(package, "check.py")]
        failed, lines = False, []
        for group in groups:
            returncode, output = run_mypy(source_dir, cache_dir, group)
            failed = failed or returncode != 0
            lines += relabel(output, labels)
    for text in lines:
        print(text)
    checked = (f"{len(files)} Python plugins and guide examples, and the stand-in, against the benchhost "
               f"module's stubs")
    if failed:
        print(f"FAIL: mypy found type errors in {checked}")
        return 1
    print(f"PASS: mypy found no type error in {checked}")
    return 0


def check_expected(source_dir, cache_dir, path):
    with open(path) as f:
        source = f.read()
    expected = {}
    for number, text in enumerate(source.splitlines(), 1):
        marker = text.find("# type error: ")
        if marker != -1:
            expected[number] = text[marker + len("# type error: "):].strip()
    with tempfile.TemporaryDirectory(prefix="benchhost-type-check-") as folder:
        copy = write_copy(folder, os.path.basename(path), source, path)
        _, output = run_mypy(source_dir, cache_dir, [copy])
        lines = relabel(output, {os.path.abspath(copy): (path, 0)})
    found = {}
    for text in lines:
        print(text)
        match = LINE.match(text)
        if match and match["rest"].lstrip().startswith("error:"):
            found.setdefault(int(match["line"]), []).append(match["rest"])
    problems = []
    for number, part in sorted(expected.items()):
        messages = found.get(number, [])
        if not any(part.lower() in m.lower() for m in messages):
            problems.append(f"{path}:{number}: expected an error with '{part}', mypy said {messages or 'nothing'}")
    for number in sorted(found.keys() - expected.keys()):
        problems.append(f"{path}:{number}: an error no comment expects: {found[number]}")
    for problem in problems:
        print(problem)
    if problems or not expected:
        print(f"FAIL: mypy's errors in {path} are not the {len(expected)} its comments mark")
        return 1
    print(f"PASS: mypy found the {len(expected)} type errors marked in {path}, and no other")
    return 0


def main():
    args = sys.argv[1:]
    if len(args) == 2:
        return check_all(*args)
    if len(args) == 4 and args[2] == "--expect-errors":
        return check_expected(args[0], args[1], args[3])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
