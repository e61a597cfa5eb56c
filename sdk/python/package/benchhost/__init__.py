"""benchhost outside a worker: the stand-in of the module a worker gives Python plugins.

A worker running a Python plugin has a compiled `benchhost` module built in
(sdk/python/src/module.cpp), which Python finds before anything on sys.path: there this
file is never run. Everywhere else (plain `python`, an editor, a type checker, a test)
`import benchhost` gets this package, installed into the project's virtual environment
by scripts/bench and scripts/test (a .pth file naming sdk/python/package):

  - __init__.pyi: the compiled module's types (Context, Config, Query, SkipScenario,
    cache_dir, benchmark), for completion and type checking;
  - Context, Config, Query, SkipScenario, cache_dir, benchmark here: stand-ins with the
    same members (benchhost._standin says what they do without a worker);
  - benchhost.torch, benchhost.jax, benchhost.models: the same files a worker carries
    (sdk/python/benchhost_torch.py, benchhost_jax.py, benchhost_models.py);
  - python -m benchhost.check FILE: runs a plugin's benchmarks once with a stand-in
    Context and prints what they recorded (docs/running.md).
"""

from benchhost._standin import Config, Context, Query, SkipScenario, _clock_ns, benchmark, cache_dir

__all__ = ["Config", "Context", "Query", "SkipScenario", "benchmark", "cache_dir"]
