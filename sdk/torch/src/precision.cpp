#include <bench/torch/precision.hpp>

#include <bench/torch/accuracy.hpp>

namespace bench::libtorch {

void record_difference_from_float32(Context& ctx, const torch::Tensor& float32_output, const torch::Tensor& output,
                                    torch::ScalarType dtype, const std::string& prefix) {
    const OutputDifference difference = output_difference(float32_output, output, tolerance_for(dtype).absolute);
    ctx.record_scalar(prefix + "max_abs_diff_vs_float32", difference.max_abs, "abs");
    ctx.record_scalar(prefix + "max_rel_diff_vs_float32", difference.max_rel, "ratio");
}

}  // namespace bench::libtorch
