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
    torch::Tensor conv_weight;              // [out, in/groups, kh, kw]
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

    /// The SDK's kernels. "conv_bn_act" ("onednn_prepacked_nhwc"): batch norm folded
    /// into the convolution's weight and bias (fold_batch_norm), the weight prepacked
    /// once per input shape into oneDNN's blocked layout (mkldnn_prepacked::conv2d_prepack,
    /// on the first call with that shape), run on channels-last input with bias and ReLU
    /// fused into the oneDNN primitive. Input of any layout is accepted; the output is an
    /// ordinary channels-last tensor, so the next kernel takes it without a reorder and
    /// residual adds, pooling and the rest of the model work on it. float32 and bfloat16
    /// on the CPU; elsewhere (CUDA, other dtypes, non-2-d) the folded convolution through
    /// at::convolution in channels-last with an in-place ReLU. About 2x eager
    /// conv + batch_norm + relu on ResNet-50's shapes at batch 1 (see kernels in
    /// variants.cpp for the measurements). Prepared kernels are safe to call from several
    /// threads.
    static KernelRegistry with_defaults();

    /// Replaces the "conv_bn_act" kernel (std::invalid_argument for an empty factory).
    void set_conv_bn_act(std::string name, ConvBnActFactory factory);
    /// Prepares a kernel from the eager layer's tensors (under NoGradGuard); std::logic_error
    /// when no conv_bn_act kernel is registered.
    PreparedKernel prepare_conv_bn_act(const ConvBnActParams& params) const;

    /// Names of the kernels in use, for the report ("conv_bn_act=onednn_prepacked_nhwc").
    std::vector<std::string> describe() const;

private:
    std::string conv_bn_act_name_;
    ConvBnActFactory conv_bn_act_;
};

/// Folds batch norm into a convolution: returns {weight, bias} such that
/// conv(x, weight, bias) == bn(conv(x, conv_weight, conv_bias)) (eval mode), computed in
/// float32 (float64 for float64 weights) and returned in conv_weight's dtype.
/// std::invalid_argument when the batch norm tensors do not match the output channels.
BENCH_EXPORT std::pair<torch::Tensor, torch::Tensor> fold_batch_norm(const ConvBnActParams& params);

}  // namespace bench::libtorch
