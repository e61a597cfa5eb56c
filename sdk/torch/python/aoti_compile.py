"""Compiles a model to an AOTInductor package (.pt2) for benchhost's LibTorch layer.

Run by the SDK (bench/torch/aot_inductor.hpp) in a child process, with the Python of the
PyTorch whose LibTorch the plugin links, never in the host:

  python aoti_compile.py REQUEST.json

REQUEST names (all paths absolute):
  definition   a Python file defining build(**arguments) -> torch.nn.Module: the same
               architecture as the plugin's C++ model; and, where the C++ names of its
               parameters and buffers differ from the Python ones, weight_name(cpp_name)
               -> the Python name
  arguments    keyword arguments of build (strings)
  weights      torch.load-able dict of name -> tensor: the C++ model's parameters and
               buffers (torch::pickle_save), loaded with strict=True
  inputs       torch.load-able list of the example inputs (the scenario's shapes, dtype
               and device)
  reference    torch.load-able tensor: the C++ model's eager output on those inputs
  tolerance    [atol, rtol]: how far the Python model's eager output may be from it,
               by the C++ layer's rule: atol + rtol * max(|reference|, RMS of reference)
  device       "cpu" or "cuda[:N]"; dtype: "float32", "float16" or "bfloat16"
  threads      the intra-op threads to compile with (the worker's): Inductor writes
               them into the CPU code (#pragma omp parallel num_threads(N)), and
               oneDNN's prepacked weights are laid out for them
  mode         the compile mode (inductor_options say what it means)
  inductor_options  Inductor's options for that mode, applied as given (the SDK sets them)
  metadata     strings stored in the package (read back by the C++ loader), with
               benchhost_torch_version, this torch's version, added
  torch_version  the LibTorch version the plugin links: this torch must be the same
  package      where to write the .pt2

Prints one JSON line on stdout: {"export_ms", "compile_ms", "torch_version",
"max_abs_diff"}. Exits 3 when the Python model does not reproduce the C++ one or this
torch is not the plugin's (the reason on stderr), 1 on any other error (a traceback on
stderr).
"""

import importlib.util
import json
import os
import shutil
import sys
import time
import zipfile


def load_definition(path):
    spec = importlib.util.spec_from_file_location("benchhost_model_definition", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if not hasattr(module, "build"):
        raise SystemExit(f"{path}: defines no build(**arguments)")
    return module


# The same as benchhost.torch's (sdk/python/benchhost_torch.py), which compiles its packages
# in the worker: each file runs where the other cannot be imported.
def _drop_model_libraries(root, package):
    """Removes from Inductor's cache folder `root` what it built the package file `package`
    from: Inductor builds a package's model library, weights and all (100 MB for
    ResNet-50), in a folder of its cache and keeps it after packaging, though the package
    holds all of it and no later compile reads it. The package names those files
    (data/aotinductor/<model>/<hash>.wrapper.so, ...): every file and folder of the cache
    whose name begins with one of those hashes goes, nothing another compile wrote.
    Left: Inductor's probes of the CPU's vector instruction sets and its kernels, which
    later compiles reuse. Never raises: what cannot be read or removed stays."""
    try:
        with zipfile.ZipFile(package) as archive:
            names = archive.namelist()
        walk = list(os.walk(root))
    except (OSError, zipfile.BadZipFile):
        return
    hashes = tuple({os.path.basename(name).split(".")[0] for name in names
                    if "/data/aotinductor/" in name and not name.endswith("/")} - {""})
    if not hashes:
        return
    for folder, subfolders, files in walk:
        for name in files:
            if name.startswith(hashes):
                try:
                    os.remove(os.path.join(folder, name))
                except OSError:
                    pass
        for name in subfolders:
            if name.startswith(hashes):
                shutil.rmtree(os.path.join(folder, name), ignore_errors=True)

def main():
    if len(sys.argv) != 2:
        raise SystemExit("usage: aoti_compile.py REQUEST.json")
    with open(sys.argv[1]) as f:
        request = json.load(f)

    import torch
    import torch.jit._pickle

    if request.get("threads", 0) > 0:
        torch.set_num_threads(request["threads"])

    wanted = request.get("torch_version", "")
    if wanted and torch.__version__.split("+")[0] != wanted.split("+")[0]:
        print(f"{sys.executable}: torch {torch.__version__}, but the plugin links LibTorch {wanted}: "
              f"set BENCHHOST_PYTHON to a python with torch {wanted}", file=sys.stderr)
        sys.exit(3)
    def load(path):
        # what torch::pickle_save writes typed containers (Dict[str, Tensor], List[Tensor]) with
        with torch.serialization.safe_globals([torch.jit._pickle.restore_type_tag, torch.jit._pickle.build_tensorlist]):
            return torch.load(path, weights_only=True, map_location=device)

    dtype = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}[request["dtype"]]
    device = torch.device(request["device"])
    definition = load_definition(request["definition"])
    model = definition.build(**request.get("arguments", {}))
    model = model.to(device=device, dtype=dtype)
    rename = getattr(definition, "weight_name", lambda name: name)
    model.load_state_dict({rename(name): value for name, value in load(request["weights"]).items()}, strict=True)
    for p in model.parameters():
        p.requires_grad_(False)
    model.eval()
    inputs = tuple(load(request["inputs"]))
    reference = load(request["reference"])

    # The same model? Its eager output against the C++ model's, before anything is compiled.
    with torch.no_grad():
        out = model(*inputs)
    atol, rtol = request.get("tolerance", [1e-4, 1e-3])
    ref = reference.double()
    finite = ref[ref.isfinite()]
    scale = float(finite.square().mean().sqrt()) if finite.numel() else 0.0
    same_shape = out.shape == reference.shape
    diff = (out.double() - ref).abs() if same_shape else torch.zeros(0)
    max_abs = float(diff.max()) if diff.numel() else 0.0
    if not same_shape or not bool((diff <= atol + rtol * ref.abs().clamp_min(scale)).all()):
        print(f"{request['definition']}: the Python model does not reproduce the C++ model: output "
              f"{tuple(out.shape)} against {tuple(reference.shape)}, max |difference| {max_abs:.3g} "
              f"(tolerance {atol:g} + {rtol:g} max(|reference|, the reference's RMS {scale:.3g}))", file=sys.stderr)
        sys.exit(3)

    options = dict(request.get("inductor_options", {}))
    options["aot_inductor.metadata"] = dict(request.get("metadata", {}), benchhost_torch_version=torch.__version__)
    start = time.perf_counter()
    with torch.no_grad():
        exported = torch.export.export(model, inputs)
    export_ms = (time.perf_counter() - start) * 1e3
    start = time.perf_counter()
    with torch.no_grad():
        torch._inductor.aoti_compile_and_package(exported, package_path=request["package"], inductor_configs=options)
    compile_ms = (time.perf_counter() - start) * 1e3
    from torch._inductor.runtime.cache_dir_utils import cache_dir
    _drop_model_libraries(cache_dir(), request["package"])
    print(json.dumps({"export_ms": export_ms, "compile_ms": compile_ms, "torch_version": torch.__version__,
                      "max_abs_diff": max_abs}))


if __name__ == "__main__":
    main()
