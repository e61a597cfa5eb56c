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
   "handshake_error": "file:line: message" or "",
   "declarations": [DECLARATION, ...],                        @benchhost.benchmark(...)
   "declaration_error": "file:line: message" or "",
   "imports": [MODULE, ...]}                                  what the module imports when
                                                              it is imported: the modules of
                                                              its module-level import
                                                              statements (also inside a
                                                              module-level if, try or with),
                                                              absolute ones, as written

The handshake is an optional module-level assignment of a literal dict, read with
ast.literal_eval (a literal only: no names, no calls):

  BENCHHOST_PLUGIN = {"name": "resnet50_py", "version": "1.0.0",
                      "axes": ["variant", "batch_size"],   # or "variant,batch_size"
                      "variants": ["eager", "compiled"], "mock": False,
                      "benchmark_variants": {"train": ["eager"]}}

Every key is optional; as checked here it is given back with axes and variants as lists
(and benchmark_variants as a dict of benchmark names to lists).

A module-level function may declare its own axes and variants with the decorator
benchhost.benchmark, whose keyword arguments are literals (read with ast.literal_eval):

  @benchhost.benchmark(axes={"batch_size": [1, 8]}, variants=["eager"])
  def benchmark_matmul(ctx): ...

  @benchhost.benchmark(distributed=True)     # a distributed benchmark: it varies over
  def benchmark_all_reduce(ctx): ...         # world_size (--world-sizes), one process a rank

axes is a list of axis names (or one comma-separated string) or a dict of axis names to
their values (a list, or one value: int, float or str); variants a list of variants (or a
comma-separated string). The decorator is recognised as `benchhost.benchmark` (or an alias
of benchhost that a module-level `import` binds) and as `benchmark` (or its alias) bound by
`from benchhost import benchmark`. A DECLARATION is

  {"function": NAME, "line": N,                 the decorator's line
   "axes": [AXIS, ...],                         present when axes, variants or distributed
                                                are given: axes, else the handshake's;
                                                "variant" put first when variants are given
                                                without it, "world_size" last when
                                                distributed=True is given without it
   "axis_values": {AXIS: [TEXT, ...]},          the values of a dict's axes, as text
   "variants": [VARIANT, ...],                  present when given
   "distributed": true}                         present when distributed=True is given
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


DECORATOR = "@benchhost.benchmark"
DECLARATION_KEYS = ("axes", "variants", "distributed")


def names_list(item):
    """A list of strings, or one comma-separated string, as a list; None when it is neither."""
    if isinstance(item, str):
        return [part.strip() for part in item.split(",") if part.strip()]
    if isinstance(item, (list, tuple)) and all(isinstance(part, str) for part in item):
        return list(item)
    return None


def axis_value_text(value):
    """An axis value of a declaration as the host reads values: text; None when it is not
    an int, a float or a string."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    return str(value)


def benchhost_bindings(tree):
    """(module names, decorator names): the names that module-level imports bind to the
    benchhost module and to benchhost.benchmark."""
    modules, decorators = set(), set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname is None and (alias.name == "benchhost" or alias.name.startswith("benchhost.")):
                    modules.add("benchhost")
                elif alias.asname is not None and alias.name == "benchhost":
                    modules.add(alias.asname)
        elif isinstance(node, ast.ImportFrom) and node.module == "benchhost" and node.level == 0:
            decorators.update(alias.asname or alias.name for alias in node.names if alias.name == "benchmark")
    return modules, decorators


def is_decorator(node, modules, decorators):
    if isinstance(node, ast.Attribute):
        return node.attr == "benchmark" and isinstance(node.value, ast.Name) and node.value.id in modules
    return isinstance(node, ast.Name) and node.id in decorators


def read_declaration(function, call, path):
    """The declaration of `function` that the decorator call `call` makes; raises
    ValueError saying where and what is wrong."""
    where = f"{path}:{call.lineno}"
    if call.args:
        raise ValueError(f"{where}: {DECORATOR} on {function.name} takes keyword arguments only "
                         f"(axes=..., variants=..., distributed=...)")
    declaration = {"function": function.name, "line": call.lineno}
    for keyword in call.keywords:
        where = f"{path}:{keyword.value.lineno}"
        if keyword.arg is None:
            raise ValueError(f"{where}: {DECORATOR} on {function.name}: arguments must be written out "
                             f"(axes=..., variants=..., distributed=...), not **unpacked")
        if keyword.arg not in DECLARATION_KEYS:
            raise ValueError(f"{where}: {DECORATOR} on {function.name}: unknown argument {keyword.arg!r} "
                             f"(known: {', '.join(DECLARATION_KEYS)})")
        name = f"{DECORATOR} on {function.name}: {keyword.arg}="
        try:
            value = ast.literal_eval(keyword.value)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            raise ValueError(f"{where}: {name} must be a literal (no names or calls), read without running "
                             f"the file") from None
        if value is None:
            continue
        if keyword.arg == "distributed":
            if not isinstance(value, bool):
                raise ValueError(f"{where}: {name} must be True or False")
            if value:
                declaration["distributed"] = True
            continue
        if keyword.arg == "variants":
            variants = names_list(value)
            if variants is None:
                raise ValueError(f"{where}: {name} must be a list of variants or one comma-separated string")
            for variant in variants:
                if variant not in VARIANTS:
                    raise ValueError(f"{where}: {name}: unknown variant {variant!r} (known: {', '.join(VARIANTS)})")
            if not variants:
                raise ValueError(f"{where}: {name} names no variant")
            declaration["variants"] = list(dict.fromkeys(variants))
        elif isinstance(value, dict):
            axes, values = [], {}
            for axis, item in value.items():
                if not isinstance(axis, str) or not axis:
                    raise ValueError(f"{where}: {name} must map axis names to their values")
                items = list(item) if isinstance(item, (list, tuple)) else [item]
                texts = [axis_value_text(v) for v in items]
                if not texts or None in texts:
                    raise ValueError(f"{where}: {name}[{axis!r}] must be a value (int, float or str) or a "
                                     f"non-empty list of them")
                axes.append(axis)
                values[axis] = list(dict.fromkeys(texts))
            declaration["axes"], declaration["axis_values"] = axes, values
        else:
            axes = names_list(value)
            if axes is None:
                raise ValueError(f"{where}: {name} must be a list of axis names, one comma-separated string, "
                                 f"or a dict of axis names to their values")
            declaration["axes"] = list(dict.fromkeys(axes))
    return declaration


def read_declarations(tree, path):
    """The declarations of the module-level functions: (list, error)."""
    modules, decorators = benchhost_bindings(tree)
    declarations = []
    for node in tree.body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        found = None
        for decorator in node.decorator_list:
            call = decorator if isinstance(decorator, ast.Call) else None
            if not is_decorator(call.func if call else decorator, modules, decorators):
                continue
            where = f"{path}:{decorator.lineno}"
            if call is None:
                return [], (f"{where}: {DECORATOR} on {node.name} needs its parentheses: "
                            f"{DECORATOR}(axes=..., variants=...)")
            if found is not None:
                return [], f"{where}: {DECORATOR} on {node.name} twice: declare its axes and variants once"
            try:
                found = read_declaration(node, call, path)
            except ValueError as e:
                return [], str(e)
        if found is not None and isinstance(node, ast.FunctionDef):
            declarations.append(found)
    return declarations, ""


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


def module_imports(body):
    """The modules the statements of `body` import when they run: import and absolute
    from-imports, and those inside if, try and with blocks; not those in functions or
    classes."""
    found = []
    for node in body:
        if isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0 and node.module:
                found.append(node.module)
        elif isinstance(node, (ast.If, ast.Try, ast.With)):
            for block in ("body", "orelse", "finalbody"):
                found.extend(module_imports(getattr(node, block, [])))
            for handler in getattr(node, "handlers", []):
                found.extend(module_imports(handler.body))
    return list(dict.fromkeys(found))


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
    declarations, declaration_error = read_declarations(tree, path)
    for declaration in declarations:
        if "variants" in declaration:
            axes = declaration.setdefault("axes", list((handshake or {}).get("axes", [])))
            if "variant" not in axes:
                axes.insert(0, "variant")
        if declaration.get("distributed"):
            axes = declaration.setdefault("axes", list((handshake or {}).get("axes", [])))
            if "world_size" not in axes:
                axes.append("world_size")
    return {"path": path, "functions": functions, "async_functions": async_functions, "handshake": handshake,
            "handshake_error": handshake_error, "declarations": declarations, "declaration_error": declaration_error,
            "imports": module_imports(tree.body)}


def main():
    files = [inspect(path) for path in sys.argv[1:]]
    python = ".".join(str(part) for part in sys.version_info[:3])
    json.dump({"python": python, "torch": torch_version(), "files": files}, sys.stdout)


if __name__ == "__main__":
    main()
