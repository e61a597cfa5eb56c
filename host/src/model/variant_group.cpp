#include "model/variant_group.hpp"

#include <string_view>

namespace benchhost {

bool differ_only_in_variant(const bench::ScenarioConfig& a, const bench::ScenarioConfig& b) {
    return a.category == b.category && a.plugin == b.plugin && a.benchmark == b.benchmark &&
           a.batch_size == b.batch_size && a.dtype == b.dtype && a.device == b.device && a.threads == b.threads &&
           a.world_size == b.world_size && a.num_tokens_to_generate == b.num_tokens_to_generate &&
           a.model_id == b.model_id && a.params == b.params;
}

namespace {

/// The fields of `c` that make a group, but its world size, joined with a separator that
/// no field contains ('\x1f', the unit separator), and each param's values after its
/// name; Params keeps its names in order.
std::string key_without_world_size(const bench::ScenarioConfig& c) {
    std::string key;
    const auto add = [&key](std::string_view field) {
        key += field;
        key += '\x1f';
    };
    add(c.category);
    add(c.plugin);
    add(c.benchmark);
    add(std::to_string(c.batch_size));
    add(c.dtype);
    add(c.device);
    add(std::to_string(c.threads));
    add(std::to_string(c.num_tokens_to_generate));
    add(c.model_id);
    for (const auto& [name, values] : c.params.all()) {
        add(name);
        for (const std::string& value : values) add(value);
        key += '\x1e';
    }
    return key;
}

}  // namespace

std::string variant_group_key(const bench::ScenarioConfig& c) {
    return key_without_world_size(c) + std::to_string(c.world_size);
}

std::string world_size_group_key(const bench::ScenarioConfig& c) {
    return key_without_world_size(c) + '\x1d' + std::string(bench::to_string(c.variant)) + '\x1f' + c.compile_mode;
}

}  // namespace benchhost
