"""Compares the stubs of the benchhost module (sdk/python/package/benchhost/__init__.pyi)
with a real module: the names it exports; each class's methods and properties; each
method's parameters, in order, with their defaults.

    python stub_members.py STUB     compares the stub with `import benchhost` here: the
                                    stand-in of sdk/python/package (ctest
                                    python_stub_members)

A plugin in a worker loads this file by path and calls compare(STUB, benchhost) on the
compiled module (tests/e2e/python_plugins_test.cpp), whose methods say their
signatures in their first docstring line (pybind11).

Every public name must be on both sides. A member whose name begins with an
underscore is a helper of the worker's own code (sdk/python/benchhost_support.py calls
Context._timed_call): one that the stub lists must be in the module, with the same
parameters, but the module may have more (and the stand-in helpers of its own).
Parameter types are not compared: the stubs' (Callable[[], object], Sequence[float])
are more precise than what pybind11 says (object, List[float]).
"""

import ast
import inspect
import sys
import types

NO_DEFAULT = "<none>"


class Signature:
    """Parameters (name, default text) after self; positional-only ones named '/'."""

    def __init__(self, parameters):
        self.parameters = parameters

    def __eq__(self, other):
        if len(self.parameters) != len(other.parameters):
            return False
        for (name, default), (other_name, other_default) in zip(self.parameters, other.parameters):
            if "/" not in (name, other_name) and name != other_name:
                return False
            if default != other_default:
                return False
        return True

    def __str__(self):
        return "(" + ", ".join(name if default == NO_DEFAULT else f"{name}={default}"
                               for name, default in self.parameters) + ")"


def default_text(node_or_value, from_ast):
    """A default as a comparable text: its literal value's repr."""
    if from_ast:
        try:
            return repr(ast.literal_eval(node_or_value))
        except ValueError:
            return ast.unparse(node_or_value)
    return repr(node_or_value)


def stub_signature(function, method):
    args = function.args
    positional = args.posonlyargs + args.args
    defaults = [NO_DEFAULT] * (len(positional) - len(args.defaults)) + [default_text(d, True) for d in args.defaults]
    parameters = [("/" if i < len(args.posonlyargs) else a.arg, d) for i, (a, d) in enumerate(zip(positional, defaults))]
    for a, d in zip(args.kwonlyargs, args.kw_defaults):
        parameters.append((a.arg, NO_DEFAULT if d is None else default_text(d, True)))
    return Signature(parameters[1:] if method else parameters)


def read_stub(path):
    """{name: ("class", base names, {member: ("property" | "method", Signature | None)})
    or ("function", Signature)} of the stub's module-level definitions, private ones left
    out."""
    with open(path) as f:
        tree = ast.parse(f.read(), filename=path)
    out = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            members = {}
            for item in node.body:
                if not isinstance(item, ast.FunctionDef):
                    continue
                is_property = any(isinstance(d, ast.Name) and d.id == "property" for d in item.decorator_list)
                members[item.name] = ("property", None) if is_property else ("method", stub_signature(item, True))
            out[node.name] = ("class", [ast.unparse(b) for b in node.bases], members)
        elif isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
            out[node.name] = ("function", stub_signature(node, False))
    return out


def split_top_level(text):
    """Splits at the commas outside brackets."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    if text[start:].strip():
        parts.append(text[start:].strip())
    return parts


def pybind_signature(name, function, method):
    """The Signature of a pybind11 function, from the first line of its docstring:
    name(self: benchhost.Context, name: str, unit: str = '') -> None."""
    first = (function.__doc__ or "").lstrip().split("\n", 1)[0]
    if not first.startswith(name + "("):
        raise ValueError(f"{name}: no pybind11 signature in its docstring ({first!r})")
    inside = first[len(name) + 1:first.rindex(") ->")]
    parameters = []
    for part in split_top_level(inside):
        if part == "*":  # py::kw_only(): the parameters after it are keyword-only, as in the stub
            continue
        head, _, default = part.partition(" = ")
        parameter = head.split(":", 1)[0].strip()
        # pybind11 names an argument without py::arg arg0, arg1...: positional only.
        if parameter.startswith("arg") and parameter[3:].isdigit():
            parameter = "/"
        parameters.append((parameter, default_text(ast.parse(default, mode="eval").body, True) if default
                           else NO_DEFAULT))
    return Signature(parameters[1:] if method else parameters)


def python_signature(function, method):
    parameters = []
    for p in inspect.signature(function).parameters.values():
        name = "/" if p.kind == p.POSITIONAL_ONLY else p.name
        parameters.append((name, NO_DEFAULT if p.default is p.empty else default_text(p.default, False)))
    return Signature(parameters[1:] if method else parameters)


def is_pybind(value):
    return type(value).__name__ in ("builtin_function_or_method", "instancemethod")


def signature_of(name, value, method):
    if is_pybind(value):
        return pybind_signature(name, value, method)
    return python_signature(value, method)


def exported(module):
    """The module's public names, its submodules left out."""
    names = getattr(module, "__all__", None) or dir(module)
    return {n for n in names if not n.startswith("_") and not isinstance(getattr(module, n), types.ModuleType)}


def compare(stub_path, module):
    """What differs between the stub and `module`: a list of lines, empty when nothing."""
    stub = read_stub(stub_path)
    problems = []
    where = f"{stub_path} against {getattr(module, '__file__', None) or 'the compiled module'}"
    names = exported(module)
    for name in sorted(names - stub.keys()):
        problems.append(f"{name}: in the module, not in the stub")
    for name in sorted(stub.keys() - names):
        problems.append(f"{name}: in the stub, not in the module")
    for name in sorted(stub.keys() & names):
        entry, value = stub[name], getattr(module, name)
        if entry[0] == "function":
            if not callable(value) or isinstance(value, type):
                problems.append(f"{name}: a function in the stub, not in the module")
            elif signature_of(name, value, False) != entry[1]:
                problems.append(f"{name}{signature_of(name, value, False)} in the module, {name}{entry[1]} in the stub")
            continue
        if not isinstance(value, type):
            problems.append(f"{name}: a class in the stub, not in the module")
            continue
        _, bases, members = entry
        for base in bases:
            base_class = getattr(__builtins__, base, None) if not isinstance(__builtins__, dict) \
                else __builtins__.get(base)
            if base_class is not None and not issubclass(value, base_class):
                problems.append(f"{name}: derives from {base} in the stub, not in the module")
        real = {}
        for klass in reversed(value.__mro__[:-1]):  # its own and its bases', not object's
            if klass.__module__ in ("builtins", "pybind11_builtins"):
                continue
            real.update({k: v for k, v in vars(klass).items() if not (k.startswith("__") and k.endswith("__"))})
        for member in sorted(real.keys() - members.keys()):
            if member.startswith("_"):
                continue  # a helper of the worker's own code, or of the stand-in
            problems.append(f"{name}.{member}: in the module, not in the stub")
        for member in sorted(members.keys() - real.keys()):
            problems.append(f"{name}.{member}: in the stub, not in the module")
        for member in sorted(members.keys() & real.keys()):
            kind, signature = members[member]
            attribute = real[member]
            if kind == "property":
                if not isinstance(attribute, property):
                    problems.append(f"{name}.{member}: a property in the stub, not in the module")
                continue
            if isinstance(attribute, property) or not callable(attribute):
                problems.append(f"{name}.{member}: a method in the stub, not in the module")
                continue
            actual = signature_of(member, attribute, True)
            if actual != signature:
                problems.append(f"{name}.{member}{actual} in the module, {name}.{member}{signature} in the stub")
    return [f"{where}: {p}" for p in problems]


def count(stub_path):
    """Names compared: the stub's module-level ones and their members."""
    stub = read_stub(stub_path)
    return len(stub) + sum(len(entry[2]) for entry in stub.values() if entry[0] == "class")


def main():
    if len(sys.argv) != 2:
        print("usage: stub_members.py STUB", file=sys.stderr)
        return 2
    import benchhost
    problems = compare(sys.argv[1], benchhost)
    for problem in problems:
        print(problem)
    if problems:
        print(f"FAIL: {len(problems)} difference(s) between the stubs and {benchhost.__file__}")
        return 1
    print(f"PASS: the {count(sys.argv[1])} names of {sys.argv[1]} match {benchhost.__file__}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
