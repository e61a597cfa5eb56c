// The distributions the statistics read their intervals from: the standard normal and
// Student's t, their distribution functions and the t quantile.
//
// Internal (sdk/internal): for the host and the SDK's own implementation; not installed,
// not exported from libbench_sdk.so, not part of the plugin API (sdk/CMakeLists.txt).
#pragma once

namespace bench {

/// P(Z <= z) for the standard normal Z.
double normal_cdf(double z);

/// P(T <= t) for Student's t with `dof` degrees of freedom (dof > 0).
double student_t_cdf(double t, double dof);

/// The t with P(T <= t) = p, for 0.5 <= p < 1 (the upper quantiles intervals use).
double student_t_quantile(double p, double dof);

}  // namespace bench
