// The kernelized variant: layers replaced by optimized kernels. A model definition
// asks the registry for a kernel by name in its kernelized forward pass; a plugin can
// register its own kernels or replace the SDK's.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <torch/types.h>

#include <bench/export.hpp>

namespace bench::libtorch {

/// A convolution with its batch norm folded in and its activation fused: what the
/// "conv_bn_act" kernel prepares once from the eager layers and then runs.
struct ConvBnActParams {
    torch::Tensor conv_weight;  // [out, in/groups, kh, kw]
    std::optional<torch::Tensor> conv_bias;
    torch::Tensor bn_weight, bn_bias, bn_mean, bn_var;
    double bn_eps = 1e-5;
    std::vector<int64_t> stride, padding, dilation;  // one value per spatial dim, or one for all; empty: 1, 0, 1
    int64_t groups = 1;
    bool relu = true;
};

/// A prepared kernel: call it on the input.
using PreparedKernel = std::function<torch::Tensor(const torch::Tensor&)>;

class BENCH_EXPORT KernelRegistry {
public:
    using ConvBnActFactory = std::function<PreparedKernel(const ConvBnActParams&)>;
    /// Whether a kernel takes a layer; the layers it does not take go to the kernel
    /// registered before it.
    using ConvBnActApplies = std::function<bool(const ConvBnActParams&)>;

    /// The SDK's kernels. "conv_bn_act": on the CPU in float32 and bfloat16 for 2-d
    /// convolutions, "onednn_prepacked_nhwc": batch norm folded into the convolution's
    /// weight and bias (fold_batch_norm), the weight prepacked once per input shape into
    /// oneDNN's blocked layout (mkldnn_prepacked::conv2d_prepack, on the first call with
    /// that shape), run on channels-last input with bias and ReLU fused into the oneDNN
    /// primitive. Elsewhere (CUDA, other dtypes, non-2-d, a LibTorch without the prepacked
    /// ops) "folded_conv_nhwc": the folded convolution through at::convolution in
    /// channels-last with an in-place ReLU. Input of any layout is accepted; the output
    /// is an ordinary channels-last tensor, so the next kernel takes it without a reorder
    /// and residual adds, pooling and the rest of the model work on it. The oneDNN kernel
    /// is about 2x eager conv + batch_norm + relu on ResNet-50's shapes at batch 1 (see
    /// kernels in variants.cpp for the measurements). Prepared kernels are safe to call
    /// from several threads.
    static KernelRegistry with_defaults();

    /// Registers a "conv_bn_act" kernel (std::invalid_argument for an empty factory).
    /// Without `applies` it replaces every kernel registered before; with it, it takes
    /// the layers `applies` accepts and leaves the others to the kernels registered
    /// before it (tried newest first).
    void set_conv_bn_act(std::string name, ConvBnActFactory factory, ConvBnActApplies applies = {});
    /// Prepares a kernel from the eager layer's tensors (under NoGradGuard) with the
    /// newest kernel that applies, and remembers which for describe(); std::logic_error
    /// when none does.
    PreparedKernel prepare_conv_bn_act(const ConvBnActParams& params) const;

    /// The kernels this registry has prepared, for the report: "conv_bn_act=NAME", or
    /// "conv_bn_act=A+B" when layers went to different kernels (in the order first
    /// used). Empty until a kernel has been prepared: a registry that a model did not
    /// use claims nothing.
    std::vector<std::string> describe() const;

private:
    struct ConvBnActKernel {
        std::string name;
        ConvBnActFactory factory;
        ConvBnActApplies applies;  // empty: every layer
    };
    std::vector<ConvBnActKernel> conv_bn_act_;  // oldest first
    mutable std::vector<std::string> conv_bn_act_used_;  // names, in the order first prepared
};

/// Where the SDK's "onednn_prepacked_nhwc" kernel applies: a 2-d convolution (4-d
/// weight) on the CPU in float32, or in bfloat16 where prepacked_runs_bfloat16(), in a
/// LibTorch that has oneDNN's prepacked convolution ops. A plugin whose own oneDNN kernel
/// takes the same layers passes it to set_conv_bn_act as `applies`, leaving the others to
/// the SDK's kernels.
BENCH_EXPORT bool prepacked_applies(const ConvBnActParams& params);

/// Whether oneDNN's prepacked convolution runs in bfloat16 on this CPU (ABI 2.13): it
/// needs AVX-512 or the CPU's own bfloat16, and refuses elsewhere (an AVX2-only CPU), where
/// the folded convolution takes bfloat16 layers. Tried once per process.
BENCH_EXPORT bool prepacked_runs_bfloat16();

/// Folds batch norm into a convolution: returns {weight, bias} such that
/// conv(x, weight, bias) == bn(conv(x, conv_weight, conv_bias)) (eval mode), computed in
/// float32 (float64 for float64 weights) and returned in conv_weight's dtype.
/// std::invalid_argument when the batch norm tensors do not match the output channels.
BENCH_EXPORT std::pair<torch::Tensor, torch::Tensor> fold_batch_norm(const ConvBnActParams& params);

}  // namespace bench::libtorch
