"""A shipped Python plugin loaded from its source, as a module, for the tests of this
folder (plugins/performance/<name>/<name>.py): its functions and constants, without
a run."""

import importlib.util
import os

SOURCE = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def load_plugin(name):
    path = os.path.join(SOURCE, "plugins", "performance", name, f"{name}.py")
    spec = importlib.util.spec_from_file_location(f"test_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
