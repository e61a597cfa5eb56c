#include "model/variant_group.hpp"

#include <gtest/gtest.h>

namespace {

using namespace benchhost;

bench::ScenarioConfig config_of(const char* plugin, const char* benchmark) {
    bench::ScenarioConfig config;
    config.plugin = plugin;
    config.benchmark = benchmark;
    return config;
}

TEST(VariantGroup, VariantsOfTheSameBenchmarkAndAxes) {
    const bench::ScenarioConfig a = config_of("p", "b");
    bench::ScenarioConfig b = a;
    b.variant = bench::Variant::compiled;
    b.compile_mode = "fast";
    EXPECT_TRUE(differ_only_in_variant(a, b));
    b.batch_size = 8;
    EXPECT_FALSE(differ_only_in_variant(a, b));
    b = a;
    b.params.set("seq_len", "128");
    EXPECT_FALSE(differ_only_in_variant(a, b));
}

TEST(VariantGroup, TheKeyIsSharedExactlyByVariantsOfOneAnother) {
    const bench::ScenarioConfig a = config_of("p", "b");
    bench::ScenarioConfig b = a;
    b.variant = bench::Variant::kernelized;
    EXPECT_EQ(variant_group_key(a), variant_group_key(b));
    b.params.set("seq_len", "128");
    EXPECT_NE(variant_group_key(a), variant_group_key(b));
}

TEST(VariantGroup, TheWorldSizeKeyIsSharedExactlyByWorldSizesOfOneScenario) {
    bench::ScenarioConfig a = config_of("p", "b");
    a.world_size = 1;
    bench::ScenarioConfig b = a;
    b.world_size = 4;
    EXPECT_EQ(world_size_group_key(a), world_size_group_key(b));
    EXPECT_NE(variant_group_key(a), variant_group_key(b));
    b.variant = bench::Variant::compiled;  // another variant's throughput is another figure
    EXPECT_NE(world_size_group_key(a), world_size_group_key(b));
    b = a;
    b.compile_mode = "max-autotune";
    EXPECT_NE(world_size_group_key(a), world_size_group_key(b));
    b = a;
    b.batch_size = 8;
    EXPECT_NE(world_size_group_key(a), world_size_group_key(b));
}

}  // namespace
