// Work accounting: floating-point operations of a forward pass, counted from the
// traced graph's matrix products and convolutions, with their shapes.
#pragma once

#include <map>
#include <string>

#include <torch/script.h>

#include <bench/context.hpp>

namespace bench::libtorch {

struct FlopCount {
    double macs = 0;  // multiply-accumulates
    double flops() const { return 2 * macs; }  // a multiply-accumulate is 2 FLOPs
    std::map<std::string, double> macs_by_op;  // "aten::_convolution" -> MACs
    /// Nodes of a counted kind whose shapes were not complete (an optimized graph's
    /// oneDNN ops, say): their work is missing from `macs`.
    int uncounted_nodes = 0;
};

/// Counts the MACs of the matrix products and convolutions in `graph` (blocks included),
/// from the shapes its tensor types carry: a traced graph (trace_graph,
/// CompiledModel::traced_graph) has them all. Convolutions (aten::_convolution,
/// convolution, conv1d/2d/3d, conv_transpose*, mkldnn_convolution,
/// prim::mkldnn_convolution): N*Cout*spatial_out*(Cin/groups)*kernel; transposed ones
/// N*Cin*spatial_in*(Cout/groups)*kernel. Products (aten::linear, matmul, mm, addmm,
/// bmm, baddbmm, mv, dot): output elements times the reduced dimension.
/// aten::_native_multi_head_attention: its four projections and two attention products.
/// aten::scaled_dot_product_attention: its two products, q k^T and the weights times v, in
/// full (a causal mask included, as unfused products would count).
/// Elementwise work, softmax and normalization are not counted.
BENCH_EXPORT FlopCount count_flops(const torch::jit::Graph& graph);

/// Records "flops_per_forward" (FLOP), "gflops" (series: achieved GFLOP/s of each
/// latency sample, GFLOP/s) and, when peak_gflops > 0, "peak_gflops" and
/// "fraction_of_peak" (median GFLOP/s over the peak); info "macs_by_op". Records
/// nothing when `count` holds no work.
BENCH_EXPORT void record_work(Context& ctx, const FlopCount& count, const Series& latency_ms, double peak_gflops);

/// The machine's measured peak GFLOP/s for `dtype` on the CPU at the current intra-op
/// thread count: the best of many runs of square GEMMs (256, 512, 1024) through oneDNN
/// (at::mkldnn_linear on oneDNN tensors) and through at::linear (the BLAS LibTorch
/// uses), whichever is fastest: many short runs find the peak even on a machine shared
/// with other work. Measured once per machine (about 1-3 s) and cached in
/// $XDG_CACHE_HOME/benchhost/calibration.json (else ~/.cache/...), keyed by CPU model,
/// dtype and threads, written atomically; a corrupt cache is measured again and
/// replaced, and so is an entry older than 30 days or measured by another LibTorch;
/// delete the file to measure again. 0 when `dtype` runs no GEMM here (float16 on this
/// CPU build).
BENCH_EXPORT double calibrated_peak_gflops(torch::ScalarType dtype);

/// The same for `device`: the CPU's as above; on a CUDA device, the best of square
/// GEMMs of 1024 to 8192 through cuBLAS (at::mm), each call waited for, keyed by the
/// GPU's name, dtype, the float32 matmul precision and whether cuBLAS may use TF32
/// (float32 products on TF32 tensor cores have a peak of their own), cached as above.
/// 0 on another device, in a LibTorch without CUDA, or when `dtype` runs no GEMM there.
/// (ABI 2.11.)
BENCH_EXPORT double calibrated_peak_gflops(torch::ScalarType dtype, const torch::Device& device);

}  // namespace bench::libtorch
