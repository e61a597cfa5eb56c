// Each variant must compute what eager computes: its output is compared with eager's
// on the same input, within the dtype's tolerance.
#pragma once

#include <torch/types.h>

#include <bench/context.hpp>

namespace bench::libtorch {

struct Tolerance {
    double absolute;
    double relative;
};

/// The tolerance of a dtype: float32 1e-4 / 1e-3, bfloat16 and float16 looser
/// (their 8- and 11-bit mantissas), float64 1e-8 / 1e-7. A variant passes when, for
/// every element, |c - r| <= absolute + relative * max(|r|, RMS(reference)), RMS being
/// the root mean square of the reference's finite elements: an element is held to the
/// relative tolerance of its own magnitude or of the tensor's scale, whichever is
/// larger. Summation-order error grows with the magnitude of the terms summed, not with
/// the sum: a logit near zero of a deep network carries the error of terms of the
/// tensor's scale (ResNet-50 at batch 32, float32: eager itself is 1.4e-4 from float64
/// on logits of RMS 3.1, its compiled variants 2.1e-4 from eager, near zero as
/// elsewhere). A wrong result moves elements by a fair part of the scale, far beyond
/// 1e-3 of it.
BENCH_EXPORT Tolerance tolerance_for(torch::ScalarType dtype);

/// How far one output is from another.
struct OutputDifference {
    double max_abs = 0;  // the largest |candidate - reference|
    double max_rel = 0;  // the largest |candidate - reference| / max(|reference|, relative_floor)
};

/// `candidate` against `reference`, both converted to dense float64 on the CPU: equal
/// values (infinities too, and NaN in both) differ by 0, NaN in one only by infinity.
/// A shape mismatch is std::runtime_error. What check_against_reference records.
BENCH_EXPORT OutputDifference output_difference(const torch::Tensor& reference, const torch::Tensor& candidate,
                                                double relative_floor);

/// Compares `candidate` with `reference` (both converted to dense float64 on the CPU),
/// records the scalars "max_abs_diff" and "max_rel_diff" (|c - r| / max(|r|,
/// tolerance.absolute), so that near-zero references do not blow it up) and, beyond
/// tolerance (tolerance_for's rule), throws std::runtime_error saying by how much and
/// where (the worst element's index, both values, the tolerance and the reference's
/// RMS): the scenario fails. NaN in one and not
/// the other is out of tolerance; a shape mismatch throws std::runtime_error too.
/// float32 on CUDA while TF32 is allowed (cuDNN convolutions allow it by default) gets
/// float16's tolerance: TF32 keeps float16's 10-bit mantissa.
BENCH_EXPORT void check_against_reference(Context& ctx, const torch::Tensor& reference, const torch::Tensor& candidate,
                                          torch::ScalarType dtype);

}  // namespace bench::libtorch
