#include <bench/params.hpp>

#include <stdexcept>

#include <gtest/gtest.h>

namespace {

TEST(Params, TypedGettersConvertAndFallBack) {
    bench::Params params;
    params.set("n", "42");
    params.set("scale", "0.5");
    params.set("fast", "true");
    params.set("name", "resnet");
    params.set("sizes", bench::Params::Values{"128", "512"});
    EXPECT_EQ(params.get_int("n"), 42);
    EXPECT_DOUBLE_EQ(params.get_double("scale"), 0.5);
    EXPECT_TRUE(params.get_bool("fast"));
    EXPECT_EQ(params.get_string("name"), "resnet");
    EXPECT_EQ(params.get_int_list("sizes"), (std::vector<long long>{128, 512}));
    EXPECT_EQ(params.get_int("missing", 7), 7);
    EXPECT_EQ(params.get_string("missing", "x"), "x");
    EXPECT_EQ(params.get_int_list("missing", {1}), std::vector<long long>{1});
}

TEST(Params, WrongTypesNameTheParameter) {
    bench::Params params;
    params.set("n", "forty");
    params.set("sizes", bench::Params::Values{"1", "2"});
    try {
        params.get_int("n");
        FAIL() << "accepted a non-integer";
    } catch (const std::invalid_argument& e) {
        EXPECT_STREQ(e.what(), "parameter 'n': 'forty' is not an integer");
    }
    EXPECT_THROW(params.get_int("sizes"), std::invalid_argument);  // a list where one value is wanted
    EXPECT_THROW(params.get_bool("n"), std::invalid_argument);
}

TEST(Params, StrictNumberParsing) {
    EXPECT_EQ(bench::parse_int("12"), 12);
    EXPECT_EQ(bench::parse_int("+12"), 12);
    EXPECT_EQ(bench::parse_int("-3"), -3);
    EXPECT_FALSE(bench::parse_int("12.5"));
    EXPECT_FALSE(bench::parse_int(""));
    EXPECT_FALSE(bench::parse_int("1e3"));
    EXPECT_EQ(bench::parse_double("1e3"), 1000.0);
    EXPECT_FALSE(bench::parse_double("nan"));
    EXPECT_FALSE(bench::parse_double("3 "));
    EXPECT_EQ(bench::parse_bool("Yes"), true);
    EXPECT_EQ(bench::parse_bool("off"), false);
    EXPECT_FALSE(bench::parse_bool("maybe"));
}

}  // namespace
