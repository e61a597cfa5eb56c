// A profile as a LibTorch model's profiled pass makes one (<bench/profile.hpp>), for the
// tests of its JSON, its reports and its trace: operators, modules, both flame graphs,
// trace events and notes, with a NaN where a figure is not known.
#pragma once

#include <cmath>
#include <string>

#include <bench/profile.hpp>

namespace benchtest {

/// eager: aten::conv2d and its children; kernelized: the prepacked convolution instead.
inline bench::Profile sample_profile(bool kernelized = false) {
    bench::Profile p;
    p.call = "forward";
    p.operator_profiler = "LibTorch 1.13.1 profiler (legacy API, CPU events)";
    p.calls = 4;
    p.call_ms = kernelized ? 6.5 : 12.5;
    p.unprofiled_call_ms = kernelized ? 5.0 : 10.0;
    p.overhead = p.call_ms / p.unprofiled_call_ms;
    if (kernelized) {
        p.operators.push_back({"mkldnn_prepacked::conv2d_run", 53, 4.0, 4.25, 0, "[[1, 3, 64, 64], []]"});
    } else {
        p.operators.push_back({"aten::mkldnn_convolution", 53, 6.0, 6.5, 0, "[[1, 64, 16, 16], [64, 64, 3, 3]]"});
        p.operators.push_back({"aten::native_batch_norm", 53, 2.0, 2.0, 0, "[[1, 64, 16, 16]]"});
        p.operators.push_back({"aten::conv2d", 53, 0.25, 6.75, 8.2e8, "[[1, 3, 64, 64], [64, 3, 7, 7]]"});
    }
    p.operators.push_back({"aten::add_", 16, 0.5, 0.5, 0, "[[1, 256, 16, 16], <weird> & \"shapes\"]"});
    p.operators.push_back({"aten::relu_", 49, 0.375, 0.5, 0, ""});
    p.modules.push_back({"stem", 0, 1, 1.5, 0.12, 9536, 262144, 524288});
    p.modules.push_back({"layer1", 0, 1, 3.0, 0.24, 215808, 1048576, 2097152});
    p.modules.push_back({"layer1_0", 1, 1, 1.25, 0.1, 75008, 1048576, 1572864});
    p.modules.push_back({"fc", 0, 1, 0.5, 0.04, NAN, 4000, 8192});
    bench::FlameGraph operators;
    operators.name = "operators";
    operators.source = "LibTorch 1.13.1 profiler (legacy API, CPU events): modules and operators as they nest";
    operators.unit = "ms";
    operators.stacks = {{"forward;stem;aten::conv2d;aten::mkldnn_convolution", 1.0},
                        {"forward;layer1;layer1_0;aten::conv2d", 0.25},
                        {"forward;layer1;layer1_0;aten::add_", 0.5},
                        {"forward;fc;aten::addmv", 0.0625}};
    p.flame_graphs.push_back(operators);
    bench::FlameGraph native;
    native.name = "native";
    native.source = "perf record -e cpu-clock -F 499 --call-graph dwarf (perf 6.1)";
    native.unit = "ms";
    native.stacks = {{"_start;main;run;[libtorch_cpu.so.1.13.0];dnnl::execute", 40.0},
                     {"_start;main;run;c10::impl::call", 8.0},
                     {"clone;start_thread;monitor_loop", 2.0}};
    p.flame_graphs.push_back(native);
    p.sampler = native.source;
    p.samples = 25;
    p.notes = {"native stacks: 2 unprofiled calls in 1.02 s, every thread of the worker"};
    p.trace = {{"forward 1", "call", 1.7955e15, 12500, 0, ""},
               {"stem", "module", 1.7955e15 + 10, 1500, 1, ""},
               {"aten::conv2d", "operator", 1.7955e15 + 20, 1000, 1, "[[1, 3, 64, 64], [64, 3, 7, 7]]"}};
    return p;
}

}  // namespace benchtest
