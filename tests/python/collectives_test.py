"""The collectives plugin's arithmetic (plugins/performance/collectives/collectives.py):
nccl-tests' bus bandwidth factors against their known values, the sizes it sweeps, and
one rank of each collective through the stand-in Context (world size 1, gloo), its
result checked as in a run."""

import os
import socket
import sys
import unittest

from plugin_source import load_plugin as load

HERE = os.path.dirname(os.path.abspath(__file__))


def load_plugin():
    return load("collectives")


class Factors(unittest.TestCase):
    def test_bus_bandwidth_factors_are_nccl_tests(self):
        plugin = load_plugin()
        factor = plugin.bus_bandwidth_factor
        # nccl-tests doc/PERFORMANCE.md: allreduce 2(n-1)/n, allgather and reducescatter
        # (n-1)/n, broadcast 1, alltoall (n-1)/n.
        self.assertEqual(factor("all_reduce", 2), 1.0)
        self.assertEqual(factor("all_reduce", 4), 1.5)
        self.assertEqual(factor("all_reduce", 8), 1.75)
        self.assertEqual(factor("all_gather", 2), 0.5)
        self.assertEqual(factor("all_gather", 8), 0.875)
        self.assertEqual(factor("reduce_scatter", 4), 0.75)
        self.assertEqual(factor("all_to_all", 4), 0.75)
        self.assertEqual(factor("broadcast", 8), 1.0)
        self.assertEqual(factor("all_reduce", 1), 0.0)
        with self.assertRaises(ValueError):
            factor("gather", 2)

    def test_sizes_and_their_names(self):
        plugin = load_plugin()
        self.assertEqual(plugin.selected_sizes({}), [8, 65536, 1048576])
        every = plugin.selected_sizes({"sizes": "all"})
        self.assertEqual(every[0], 8)
        self.assertEqual(every[1:], [4 ** k for k in range(2, 15)])
        self.assertEqual(every[-1], 256 << 20)
        self.assertEqual(plugin.selected_sizes({"sizes": ["8", "1024"]}), [8, 1024])
        with self.assertRaises(ValueError):
            plugin.selected_sizes({"sizes": "lots"})
        self.assertEqual([plugin.size_label(s) for s in (8, 1000, 1024, 65536, 1 << 20, 256 << 20, 1 << 30)],
                         ["8B", "1000B", "1KiB", "64KiB", "1MiB", "256MiB", "1GiB"])
        self.assertTrue(plugin.selected("broadcast", {"collective": ["broadcast", "all_reduce"]}))
        self.assertFalse(plugin.selected("all_gather", {"collective": "broadcast"}))
        with self.assertRaises(ValueError):
            plugin.selected("all_gather", {"collective": "gather"})


class OneRank(unittest.TestCase):
    def test_each_collective_checks_its_result(self):
        try:
            import torch.distributed as dist
        except ImportError:
            raise unittest.SkipTest("torch cannot be imported")
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        os.environ.update({"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port), "RANK": "0", "WORLD_SIZE": "1"})
        plugin = load_plugin()
        dist.init_process_group("gloo", rank=0, world_size=1)
        try:
            for name in plugin.COLLECTIVES:
                collective = plugin.Collective(name, 4096, 1, 0, "cpu")
                try:
                    collective.checked_call()
                except (RuntimeError, NotImplementedError) as error:
                    if plugin.unsupported(error):
                        continue
                    raise
                self.assertEqual(collective.bytes, 4096, name)
            # A wrong result is caught, naming what is wrong.
            collective = plugin.Collective("broadcast", 64, 1, 0, "cpu")
            collective.call = lambda: collective.buffer.fill_(3.0)
            with self.assertRaisesRegex(ValueError, "broadcast of 64 bytes on rank 0 of 1: the result is wrong at "
                                                    "element 0: 3.0, expected 7.0"):
                collective.checked_call()
        finally:
            dist.destroy_process_group()


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(HERE, "..", "..", "sdk", "python", "package"))
    unittest.main()
