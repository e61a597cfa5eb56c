// Lower precision beside float32: how far a model's output in the scenario's dtype is
// from its float32 output on the same input.
#pragma once

#include <string>

#include <torch/types.h>

#include <bench/context.hpp>

namespace bench::libtorch {

/// Records how far `output` (the model's, in `dtype`) is from `float32_output` (the same
/// model's in float32, on the same input: for a float32 scenario, eager's reference):
/// the scalars "<prefix>max_abs_diff_vs_float32" (the largest |output - float32|) and
/// "<prefix>max_rel_diff_vs_float32" (the largest |output - float32| / max(|float32|,
/// floor), the floor being tolerance_for(dtype).absolute, as for max_rel_diff). A
/// figure, not a check: nothing fails however far it is. Call it outside the timed
/// samples; the reports put the dtypes of a scenario side by side with it. A shape
/// mismatch is std::runtime_error.
BENCH_EXPORT void record_difference_from_float32(Context& ctx, const torch::Tensor& float32_output,
                                                 const torch::Tensor& output, torch::ScalarType dtype,
                                                 const std::string& prefix = "");

}  // namespace bench::libtorch
