// The normal and Student's t distributions against values from published tables.
#include <gtest/gtest.h>

#include <bench/internal/statistics/distributions.hpp>

namespace {

TEST(Distributions, TheNormalDistributionFunctionMatchesItsTable) {
    EXPECT_NEAR(bench::normal_cdf(0), 0.5, 1e-12);
    EXPECT_NEAR(bench::normal_cdf(1.959964), 0.975, 1e-6);
    EXPECT_NEAR(bench::normal_cdf(-2.575829), 0.005, 1e-6);
}

TEST(Distributions, StudentsTQuantilesMatchTheirTable) {
    // Two-sided 95% and 99% critical values (any statistics table).
    EXPECT_NEAR(bench::student_t_quantile(0.975, 1), 12.7062, 1e-3);
    EXPECT_NEAR(bench::student_t_quantile(0.975, 4), 2.7764, 1e-3);
    EXPECT_NEAR(bench::student_t_quantile(0.975, 10), 2.2281, 1e-3);
    EXPECT_NEAR(bench::student_t_quantile(0.995, 19), 2.8609, 1e-3);
    EXPECT_NEAR(bench::student_t_quantile(0.975, 1000), 1.9623, 1e-3);
    EXPECT_NEAR(bench::student_t_quantile(0.5, 7), 0.0, 1e-9);
}

TEST(Distributions, TheTDistributionFunctionInvertsItsQuantile) {
    for (const double dof : {2.0, 5.0, 30.0})
        for (const double p : {0.6, 0.9, 0.99})
            EXPECT_NEAR(bench::student_t_cdf(bench::student_t_quantile(p, dof), dof), p, 1e-9) << dof << " " << p;
    EXPECT_NEAR(bench::student_t_cdf(-2.7764, 4), 0.025, 1e-4);
}

}  // namespace
