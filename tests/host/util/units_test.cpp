// How figures are scaled for people (util/units.hpp) and written (format_figure in
// util/text_table.hpp): every unit the same way.
#include "util/units.hpp"

#include <cmath>

#include <gtest/gtest.h>

#include "util/text_table.hpp"

namespace {

using benchhost::display_scale;
using benchhost::format_change;
using benchhost::format_figure;

TEST(Units, TimesTakeTheUnitThatSuitsThem) {
    EXPECT_EQ(format_figure(845, "us"), "845 us");
    EXPECT_EQ(format_figure(1520, "ms"), "1.52 s");
    EXPECT_EQ(format_figure(0.57, "ns"), "0.57 ns");
    EXPECT_EQ(format_figure(0.004, "s"), "4.00 ms");
    EXPECT_EQ(format_figure(999.96, "ms"), "1.00 s");  // rounded first, then scaled
    EXPECT_EQ(format_figure(0, "ms"), "0.00 ms");
}

TEST(Units, RatesAndCountsGetKMGOnTheNumber) {
    EXPECT_EQ(format_figure(22765172, "elements/s"), "22.8M elements/s");
    EXPECT_EQ(format_figure(850851797, "elements/s"), "851M elements/s");
    EXPECT_EQ(format_figure(1183.4, "items/s"), "1.18k items/s");
    EXPECT_EQ(format_figure(81.23, "tokens/s"), "81.2 tokens/s");  // below 1000: as it is
    EXPECT_EQ(format_figure(2.5e9, "samples/s"), "2.50G samples/s");
    EXPECT_EQ(format_figure(999600, "samples/s"), "1.00M samples/s");
    EXPECT_EQ(format_figure(-42000, ""), "-42.0k");
    EXPECT_EQ(format_figure(0.25, "samples/s"), "0.25 samples/s");  // no milli for a rate
}

TEST(Units, APrefixedUnitTakesAnotherPrefix) {
    EXPECT_EQ(format_figure(312000, "GFLOP/s"), "312 TFLOP/s");
    EXPECT_EQ(format_figure(45.6, "GFLOP/s"), "45.6 GFLOP/s");
    EXPECT_EQ(format_figure(0.5, "GFLOP/s"), "500 MFLOP/s");
    EXPECT_EQ(format_figure(2400, "MHz"), "2.40 GHz");
}

TEST(Units, SizesStayInTheirFamily) {
    EXPECT_EQ(format_figure(1536, "MiB"), "1.50 GiB");
    EXPECT_EQ(format_figure(1000, "MiB"), "1000 MiB");  // under 1024
    EXPECT_EQ(format_figure(3 * 1024 * 1024, "bytes"), "3.00 MiB");
    EXPECT_EQ(format_figure(2500, "MB"), "2.50 GB");
    EXPECT_EQ(format_figure(512, "B"), "512 B");
}

TEST(Units, PercentagesAndRatiosAreNotScaled) {
    EXPECT_EQ(format_figure(95, "%"), "95.0 %");
    EXPECT_EQ(format_figure(12345, "%"), "12345 %");
    EXPECT_EQ(format_figure(1500, "x"), "1500 x");
    EXPECT_EQ(format_figure(NAN, "ms"), "-");
}

TEST(Units, AChangeIsSignedAndNothingIsPlusZero) {
    EXPECT_EQ(format_change(1.204), "+20.4%");
    EXPECT_EQ(format_change(0.9), "-10.0%");
    EXPECT_EQ(format_change(0.99996), "+0.0%");  // rounds to nothing: not -0.0%
    EXPECT_EQ(format_change(1.0), "+0.0%");
    EXPECT_EQ(format_change(NAN), "-");
}

TEST(Units, TheScaleAppliesToOtherFiguresOfTheSameSize) {
    // What figure_with_interval uses for the bounds of an interval.
    const auto scale = display_scale(22765172, "elements/s");
    EXPECT_DOUBLE_EQ(scale.factor, 1e-6);
    EXPECT_EQ(scale.suffix, "M elements/s");
    const auto time = display_scale(1520, "ms");
    EXPECT_DOUBLE_EQ(time.factor, 1e-3);
    EXPECT_EQ(time.suffix, " s");
}

}  // namespace
