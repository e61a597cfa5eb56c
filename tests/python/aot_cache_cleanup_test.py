"""What an AOTInductor package's compile leaves in Inductor's cache folder (ctest
python_aot_cache_cleanup): Inductor builds the package's model library, weights and all,
in a folder of its cache and keeps it after packaging; benchhost's two exporters (the
C++ layer's child, sdk/torch/python/aoti_compile.py, and benchhost.torch's, which
compile in a cache folder kept across compiles) remove those files once the package
holds them (_drop_model_libraries), and leave what later compiles reuse: Inductor's
probes of the CPU's vector instruction sets. A real compile of a small MLP, then the
package loaded from its file and checked against eager.

Exit 77 (ctest's skip) where torch cannot be imported.
"""

import importlib.util
import os
import shutil
import sys
import tempfile
import unittest
import zipfile

try:
    import torch
except ImportError as error:
    print(f"torch cannot be imported here ({error}): scripts/lib/requirements.txt installs it into the venv")
    sys.exit(77)

HERE = os.path.dirname(os.path.realpath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))


def exporter_module():
    """sdk/torch/python/aoti_compile.py, the C++ layer's exporter, as a module."""
    spec = importlib.util.spec_from_file_location("aoti_compile", os.path.join(ROOT, "sdk/torch/python/aoti_compile.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Mlp(torch.nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.a = torch.nn.Linear(16, hidden)
        self.b = torch.nn.Linear(hidden, 4)

    def forward(self, x):
        return self.b(torch.relu(self.a(x)))


def files_under(folder):
    return sorted(os.path.relpath(os.path.join(d, f), folder) for d, _, names in os.walk(folder) for f in names)


class ModelLibrariesLeaveTheCache(unittest.TestCase):
    def setUp(self):
        self.work = tempfile.mkdtemp(prefix="benchhost-aot-cache-")
        self.cache = os.path.join(self.work, "inductor")
        self.saved = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
        os.environ["TORCHINDUCTOR_CACHE_DIR"] = self.cache  # read by Inductor at each compile

    def tearDown(self):
        if self.saved is None:
            os.environ.pop("TORCHINDUCTOR_CACHE_DIR", None)
        else:
            os.environ["TORCHINDUCTOR_CACHE_DIR"] = self.saved
        shutil.rmtree(self.work, ignore_errors=True)

    def compile(self, hidden):
        torch.manual_seed(hidden)
        model = Mlp(hidden).eval()
        x = torch.randn(2, 16)
        package = os.path.join(self.work, f"mlp{hidden}.pt2")
        with torch.no_grad():
            torch._inductor.aoti_compile_and_package(torch.export.export(model, (x,)), package_path=package)
        with zipfile.ZipFile(package) as archive:
            built = [os.path.basename(n) for n in archive.namelist() if n.endswith(".wrapper.so")]
        self.assertEqual(len(built), 1, "the package holds its model library")
        return model, x, package, built[0]

    def test_each_exporter_removes_its_package_library_and_keeps_the_probes(self):
        from torch._inductor.runtime.cache_dir_utils import cache_dir
        import benchhost.torch
        self.assertEqual(cache_dir(), self.cache)
        for number, drop in ((24, exporter_module()._drop_model_libraries),
                             (40, benchhost.torch._drop_model_libraries)):
            model, x, package, library = self.compile(number)
            before = files_under(self.cache)
            self.assertIn(library, [os.path.basename(f) for f in before], "Inductor keeps the library in its cache")
            probes = [f for f in before if f.endswith(".so") and not f.endswith(".wrapper.so")]
            self.assertTrue(probes, f"Inductor's probes of the CPU: {before}")
            drop(self.cache, package)
            after = files_under(self.cache)
            stem = library.split(".")[0]
            self.assertFalse([f for f in after if os.path.basename(f).startswith(stem)], after)
            self.assertFalse([f for f in after if f.endswith(".wrapper.so")], after)
            for probe in probes:
                self.assertIn(probe, after, "the probes stay for later compiles")
            # The package is whole without them.
            compiled = torch._inductor.aoti_load_package(package)
            with torch.no_grad():
                torch.testing.assert_close(compiled(x), model(x))

    def test_what_cannot_be_read_is_left_alone(self):
        os.makedirs(os.path.join(self.cache, "ab"))
        kept = os.path.join(self.cache, "ab", "cxyz.so")
        open(kept, "w").close()
        for drop in (exporter_module()._drop_model_libraries, __import__("benchhost.torch").torch._drop_model_libraries):
            drop(self.cache, os.path.join(self.work, "missing.pt2"))  # no package: nothing removed, no error
            not_a_zip = os.path.join(self.work, "text.pt2")
            with open(not_a_zip, "w") as f:
                f.write("not a package")
            drop(self.cache, not_a_zip)
            drop(os.path.join(self.work, "no-such-cache"), not_a_zip)
            self.assertTrue(os.path.exists(kept))


if __name__ == "__main__":
    unittest.main(verbosity=2)
