"""benchhost.torch's AOTInductor packages (sdk/python/benchhost_torch.py) with the stand-in
Context, in the project's venv (ctest python_torch_aot):

  - compile mode default exports and compiles a package into benchhost's cache
    (aot-inductor/<name>-default-<key>/ with model.pt2, key.txt, compile.json) in one
    process, and the next process loads it: info compile_cache "miss: PATH", then
    "hit: PATH", compile_time and export_time on the miss only, package_load_time on
    both, the output within float32's tolerance of eager's (max_abs_diff) both times;
  - the package's output goes through the check against eager: one that differs fails;
  - a cache entry that does not load is deleted, with a warning, and compiled again;
  - the key: the same model, weights and inputs give the same key, another input shape,
    weight, mode, thread count or Inductor option another;
  - a model torch.export cannot export fails, naming the model and torch.export's
    reason, and the log is kept beside the packages;
  - torch.compile stays, as compile mode torch-compile, with its counts; an unknown mode
    fails naming the modes.

Exit 77 (ctest's skip) where torch cannot be imported. `torch_aot_test.py --probe CACHE`
is the child process the cache tests start: a fresh process is what a later worker is.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

try:
    import torch
except ImportError as error:
    print(f"torch cannot be imported here ({error}): scripts/lib/requirements.txt installs it into the venv")
    sys.exit(77)

from benchhost._standin import Config, Context


def helper():
    import benchhost.torch
    return benchhost.torch


class Tiny(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.first = torch.nn.Linear(64, 32)
        self.second = torch.nn.Linear(32, 8)

    def forward(self, x):
        return self.second(torch.relu(self.first(x)))


class Branchy(Tiny):
    """A forward that branches on a value: torch.export cannot export it."""

    def forward(self, x):
        y = self.first(x)
        if y.sum() > 0:
            return self.second(y)
        return self.second(-y)


def tiny(cls=Tiny, seed=0):
    torch.manual_seed(seed)
    model = cls().eval()
    for p in model.parameters():
        p.requires_grad_(False)
    return model


def tiny_input(rows=4):
    return torch.randn(rows, 64, generator=torch.Generator().manual_seed(1))


def compiled(ctx, model, x):
    with torch.inference_mode():
        forward = helper().model_variant(ctx, model, (x,), name="tiny")
        return forward(x)


class TorchAotTest(unittest.TestCase):

    def setUp(self):
        self.cache = tempfile.mkdtemp(prefix="benchhost-torch-aot-test-")
        self.addCleanup(shutil.rmtree, self.cache, ignore_errors=True)
        os.environ["BENCHHOST_CACHE_DIR"] = self.cache

    def probe(self):
        result = subprocess.run([sys.executable, __file__, "--probe", self.cache], capture_output=True, text=True,
                                timeout=600)
        self.assertEqual(result.returncode, 0, result.stderr)
        return json.loads(result.stdout.strip().splitlines()[-1]), result.stderr

    def test_a_package_is_compiled_once_then_loaded_by_the_next_process(self):
        first, said = self.probe()
        entry = os.path.join(self.cache, "aot-inductor")
        folders = os.listdir(entry)
        self.assertEqual(len(folders), 1, folders)  # the entry, no temporary folder left
        self.assertTrue(folders[0].startswith("tiny-default-"), folders)
        package = os.path.join(entry, folders[0], "model.pt2")
        self.assertEqual(sorted(os.listdir(os.path.join(entry, folders[0]))), ["compile.json", "key.txt", "model.pt2"])
        self.assertEqual(first["info"]["compile_cache"], f"miss: {package}", first)
        self.assertIn("AOTInductor package (mode 'default')", first["info"]["compiler"])
        self.assertEqual(first["info"]["variant_passes"], "torch.export,aot_inductor(default,freezing)")
        for name in ("compile_time", "export_time", "package_load_time", "first_call"):
            self.assertGreater(first["scalars"][name][0], 0, name)
            self.assertEqual(first["scalars"][name][1], "ms", name)
        self.assertLess(first["scalars"]["export_time"][0], first["scalars"]["compile_time"][0])
        self.assertLessEqual(first["scalars"]["max_abs_diff"][0], 1e-4)
        self.assertNotIn("graph_breaks", first["scalars"])  # torch.compile's counts: not a package's
        # The console is told, before the compile, what is compiled and that it is kept.
        self.assertIn(f"[notice] compiling the AOTInductor package of tiny (mode default, input Float[4, 64], "
                      f"{torch.get_num_threads()} threads, cpu): a minute or more on a CPU; cached for later runs in "
                      f"{entry}", said)
        with open(os.path.join(entry, folders[0], "key.txt")) as f:
            key = f.read().splitlines()
        self.assertEqual(key[0], "model tiny")
        for line in ("input Float[4, 64]", f"threads {torch.get_num_threads()}", "device cpu", "mode default",
                     'options {"freezing": true}', f"torch {torch.__version__}"):
            self.assertIn(line, key)
        self.assertEqual(folders[0], f"tiny-default-{helper()._fnv_hex(chr(10).join(key) + chr(10))}")

        second, said = self.probe()
        self.assertEqual(second["info"]["compile_cache"], f"hit: {package}", second)
        self.assertNotIn("compile_time", second["scalars"])
        self.assertNotIn("export_time", second["scalars"])
        self.assertGreater(second["scalars"]["package_load_time"][0], 0)
        self.assertLess(second["scalars"]["package_load_time"][0], first["scalars"]["compile_time"][0])
        self.assertLessEqual(second["scalars"]["max_abs_diff"][0], 1e-4)
        self.assertEqual(second["output"], first["output"])
        self.assertNotIn("[notice] compiling", said)
        self.assertEqual(second["warnings"], [])

        # Here too (the same model, weights, input and threads): a hit, and its output is
        # checked against eager's like any variant's.
        ctx = Context(Config(variant="compiled"))
        model, x = tiny(), tiny_input()
        out = compiled(ctx, model, x)
        self.assertEqual(ctx._recorded.info["compile_cache"], f"hit: {package}")
        with torch.inference_mode():
            self.assertLessEqual(float((out - model(x)).abs().max()), 1e-4)
        original = helper()._Package.__call__
        try:
            helper()._Package.__call__ = lambda self, *args: original(self, *args) + 0.5
            ctx = Context(Config(variant="compiled"))
            with self.assertRaises(AssertionError) as raised:
                compiled(ctx, model, x)
        finally:
            helper()._Package.__call__ = original
        self.assertIn("output 0 differs from eager beyond the float32 tolerance", str(raised.exception))
        self.assertAlmostEqual(ctx._recorded.scalars["max_abs_diff"][0], 0.5, places=5)

        # An entry that does not load: deleted, said, compiled again.
        with open(package, "wb") as f:
            f.write(b"not a package")
        ctx = Context(Config(variant="compiled"))
        compiled(ctx, model, x)
        self.assertEqual(ctx._recorded.info["compile_cache"], f"miss: {package}")
        self.assertEqual(len(ctx._recorded.warnings), 1, ctx._recorded.warnings)
        self.assertTrue(ctx._recorded.warnings[0].startswith(f"cache entry deleted and compiled again: {package}: "),
                        ctx._recorded.warnings)
        self.assertLessEqual(ctx._recorded.scalars["max_abs_diff"][0], 1e-4)

    def test_the_key_is_what_the_package_depends_on(self):
        h = helper()
        cpu = torch.device("cpu")
        options = h._inductor_options("default", True)

        def key(model=None, x=None, mode="default", opts=options):
            return h._package_key(model or tiny(), (tiny_input() if x is None else x,), "tiny", mode, opts, cpu)[0]

        base = key()
        self.assertEqual(key(), base)  # a new model with the same seed: the same package
        self.assertNotEqual(key(x=tiny_input(rows=8)), base)
        self.assertNotEqual(key(x=tiny_input().double()), base)
        self.assertNotEqual(key(model=tiny(seed=1)), base)
        self.assertNotEqual(key(model=tiny(cls=Branchy)), base)  # another class: another source
        self.assertNotEqual(key(mode="max-autotune", opts=h._inductor_options("max-autotune", True)), base)
        self.assertNotEqual(key(opts=h._inductor_options("default", False)), base)
        threads = torch.get_num_threads()
        try:
            torch.set_num_threads(1 if threads != 1 else 2)
            self.assertNotEqual(key(), base)
        finally:
            torch.set_num_threads(threads)
        self.assertEqual(h._inductor_options("default", True), {"freezing": True})  # the C++ layer's
        self.assertEqual(h._inductor_options("max-autotune", True),
                         {"freezing": True, "max_autotune": True, "coordinate_descent_tuning": True})

    def test_a_model_that_cannot_export_fails_naming_it_and_why(self):
        ctx = Context(Config(variant="compiled"))
        model, x = tiny(cls=Branchy), tiny_input()
        with self.assertRaises(RuntimeError) as raised:
            with torch.inference_mode():
                helper().model_variant(ctx, model, (x,))
        text = str(raised.exception)
        self.assertTrue(text.startswith("torch.export cannot export Branchy for compile mode default (an "
                                        "AOTInductor package): "), text)
        self.assertIn("data-dependent", text.lower())
        self.assertIn("compile mode torch-compile compiles the model with torch.compile", text)
        entry = os.path.join(self.cache, "aot-inductor")
        logs = [name for name in os.listdir(entry) if name.endswith(".failed.log")]
        self.assertEqual(len(logs), 1, os.listdir(entry))
        self.assertIn(f"(log: {os.path.join(entry, logs[0])})", text)
        self.assertEqual([n for n in os.listdir(entry) if not n.endswith(".failed.log")], [])  # no entry, no tmp

    def test_torch_compile_is_a_mode_of_its_own_with_its_counts(self):
        ctx = Context(Config(variant="compiled", compile_mode="torch-compile"))
        model, x = tiny(), tiny_input()
        with torch.inference_mode():
            forward = helper().model_variant(ctx, model, (x,))
            forward(x)
        scalars, info = ctx._recorded.scalars, ctx._recorded.info
        self.assertIn("torch.compile(mode='default')", info["compiler"])
        self.assertIn("Inductor freezing on", info["compiler"])
        self.assertEqual(scalars["graph_breaks"][0], 0)
        self.assertEqual(scalars["unique_graphs"][0], 1)
        self.assertEqual(scalars["recompiles"][0], 0)
        self.assertNotIn("compile_cache", info)
        self.assertLessEqual(scalars["max_abs_diff"][0], 1e-4)
        self.assertFalse(os.path.exists(os.path.join(self.cache, "aot-inductor")))

        with self.assertRaises(ValueError) as raised:
            helper().model_variant(Context(Config(variant="compiled", compile_mode="bogus")), model, (x,))
        self.assertIn("compile mode 'bogus' is not one that benchhost.torch.model_variant knows: default, "
                      "max-autotune, torch-compile, torch-compile-max-autotune, reduce-overhead, "
                      "max-autotune-no-cudagraphs, torchscript", str(raised.exception))


def probe(cache):
    """In a fresh process: the compiled variant of the tiny model, printed as JSON."""
    os.environ["BENCHHOST_CACHE_DIR"] = cache
    ctx = Context(Config(variant="compiled"))
    out = compiled(ctx, tiny(), tiny_input())
    recorded = ctx._recorded
    print(json.dumps({"info": recorded.info, "scalars": recorded.scalars, "warnings": recorded.warnings,
                      "output": [round(v, 6) for v in out.flatten().tolist()]}))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--probe":
        probe(sys.argv[2])
        sys.exit(0)
    unittest.main(verbosity=2)
