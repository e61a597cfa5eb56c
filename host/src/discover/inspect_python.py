"""Reads Python plugin files for benchhost's discovery without running them.

Run by the host in a child process (python -I -c THIS FILE...), never imported by a
plugin. Each file is parsed with the standard library's ast module: nothing of the file
is executed or imported. Prints one JSON object on stdout:

  {"python": "3.11.2", "torch": "2.14.1+cu130" or "", "files": [ENTRY, ...]}

"torch" is read from torch/version.py where the interpreter would import torch from,
without importing it.

with an ENTRY per argument, in order:

  {"path": P, "error": "file:line:column: message"}          it cannot be read or parsed
  {"path": P, "functions": [NAME, ...],                       module-level functions: def
                                                              statements, and names a
                                                              `from ... import` binds
   "async_functions": [NAME, ...],                            module-level async defs
   "handshake": {...} or null,                                BENCHHOST_PLUGIN, checked
   "handshake_error": "file:line: message" or ""}

The handshake is an optional module-level assignment of a literal dict, read with
ast.literal_eval (a literal only: no names, no calls):

  BENCHHOST_PLUGIN = {"name": "resnet50_py", "version": "1.0.0",
                      "axes": ["variant", "batch_size"],   # or "variant,batch_size"
                      "variants": ["eager", "compiled"], "mock": False,
                      "benchmark_variants": {"train": ["eager"]}}

Every key is optional; as checked here it is given back with axes and variants as lists
(and benchmark_variants as a dict of benchmark names to lists).
"""

import ast
import importlib.util
import json
import os
import re
import sys

HANDSHAKE = "BENCHHOST_PLUGIN"
VARIANTS = ("eager", "compiled", "kernelized")


def check_handshake(value, where):
    """The handshake with axes and variants as lists; raises ValueError saying what is wrong."""
    if not isinstance(value, dict):
        raise ValueError(f"{where}: {HANDSHAKE} must be a dict, not {type(value).__name__}")
    known = ("name", "version", "axes", "variants", "mock", "benchmark_variants")
    out = {}
    for key, item in value.items():
        if key not in known:
            raise ValueError(f"{where}: {HANDSHAKE} has an unknown key {key!r} (known: {', '.join(known)})")
        if key in ("name", "version"):
            if not isinstance(item, str) or not item:
                raise ValueError(f"{where}: {HANDSHAKE}[{key!r}] must be a non-empty string")
        elif key == "mock":
            if not isinstance(item, bool):
                raise ValueError(f"{where}: {HANDSHAKE}['mock'] must be True or False")
        elif key == "benchmark_variants":
            if not isinstance(item, dict):
                raise ValueError(f"{where}: {HANDSHAKE}['benchmark_variants'] must map benchmark names to lists "
                                 "of variants")
            checked = {}
            for benchmark, variants in item.items():
                name = f"{HANDSHAKE}['benchmark_variants'][{benchmark!r}]"
                if isinstance(variants, str):
                    variants = [part.strip() for part in variants.split(",") if part.strip()]
                if not isinstance(benchmark, str) or not isinstance(variants, (list, tuple)) or \
                        not all(isinstance(v, str) for v in variants):
                    raise ValueError(f"{where}: {name} must be a list of variants")
                for variant in variants:
                    if variant not in VARIANTS:
                        raise ValueError(f"{where}: {name}: unknown variant {variant!r} (known: {', '.join(VARIANTS)})")
                checked[benchmark] = list(variants)
            item = checked
        else:
            if isinstance(item, str):
                item = [part.strip() for part in item.split(",") if part.strip()]
            if not isinstance(item, (list, tuple)) or not all(isinstance(part, str) for part in item):
                raise ValueError(f"{where}: {HANDSHAKE}[{key!r}] must be a list of strings or one comma-separated string")
            item = list(item)
            if key == "variants":
                for variant in item:
                    if variant not in VARIANTS:
                        raise ValueError(f"{where}: {HANDSHAKE}['variants']: unknown variant {variant!r} "
                                         f"(known: {', '.join(VARIANTS)})")
        out[key] = item
    return out


def torch_version():
    try:
        spec = importlib.util.find_spec("torch")  # finds, does not import
    except (ImportError, ValueError):
        return ""
    if spec is None or not spec.submodule_search_locations:
        return ""
    for folder in spec.submodule_search_locations:
        try:
            with open(os.path.join(folder, "version.py")) as f:
                found = re.search(r"^__version__\s*=\s*['\"]([^'\"]+)['\"]", f.read(), re.M)
        except OSError:
            continue
        if found:
            return found.group(1)
    return ""


def inspect(path):
    try:
        with open(path, "rb") as f:
            source = f.read()
    except OSError as e:
        return {"path": path, "error": f"{path}: cannot be read: {e.strerror}"}
    try:
        tree = ast.parse(source, filename=path)
    except SyntaxError as e:
        where = f"{e.filename or path}:{e.lineno or 0}:{e.offset or 0}"
        return {"path": path, "error": f"{where}: {e.msg}"}
    except ValueError as e:  # null bytes in the source
        return {"path": path, "error": f"{path}: {e}"}
    functions, async_functions = [], []
    handshake, handshake_error = None, ""
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            functions.append(node.name)
        elif isinstance(node, ast.ImportFrom):
            functions.extend(alias.asname or alias.name for alias in node.names if alias.name != "*")
        elif isinstance(node, ast.AsyncFunctionDef):
            async_functions.append(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if not any(isinstance(t, ast.Name) and t.id == HANDSHAKE for t in targets) or node.value is None:
                continue
            try:
                value = ast.literal_eval(node.value)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                handshake, handshake_error = None, f"{path}:{node.lineno}: {HANDSHAKE} must be a literal dict (no names or calls)"
                continue
            try:
                handshake, handshake_error = check_handshake(value, f"{path}:{node.lineno}"), ""
            except ValueError as e:
                handshake, handshake_error = None, str(e)
    return {"path": path, "functions": functions, "async_functions": async_functions, "handshake": handshake,
            "handshake_error": handshake_error}


def main():
    files = [inspect(path) for path in sys.argv[1:]]
    python = ".".join(str(part) for part in sys.version_info[:3])
    json.dump({"python": python, "torch": torch_version(), "files": files}, sys.stdout)


if __name__ == "__main__":
    main()
