// Free-form parameters of a scenario, from the `params:` section of a YAML config or
// from custom axes. Values are kept as text and converted on access, so that a wrong
// type is reported with the parameter's name.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <bench/export.hpp>

namespace bench {

class BENCH_EXPORT Params {
public:
    /// A scalar is a list of one value; nested maps are flattened to "outer.inner".
    using Values = std::vector<std::string>;

    void set(std::string key, Values values);
    void set(std::string key, std::string value);
    bool contains(std::string_view key) const;
    bool empty() const { return values_.empty(); }
    const std::map<std::string, Values, std::less<>>& all() const { return values_; }

    /// Each getter returns `fallback` when the key is absent and throws
    /// std::invalid_argument naming the key when the value has the wrong type.
    std::string get_string(std::string_view key, std::string_view fallback = {}) const;
    long long get_int(std::string_view key, long long fallback = 0) const;
    double get_double(std::string_view key, double fallback = 0.0) const;
    bool get_bool(std::string_view key, bool fallback = false) const;
    std::vector<long long> get_int_list(std::string_view key, std::vector<long long> fallback = {}) const;
    std::vector<double> get_double_list(std::string_view key, std::vector<double> fallback = {}) const;
    std::vector<std::string> get_string_list(std::string_view key, std::vector<std::string> fallback = {}) const;

    friend bool operator==(const Params&, const Params&) = default;

private:
    const Values* find(std::string_view key) const;
    std::map<std::string, Values, std::less<>> values_;
};

/// Strict conversions shared by Params and the config loaders; nullopt when `text`
/// is not entirely a value of that type.
BENCH_EXPORT std::optional<long long> parse_int(std::string_view text);
BENCH_EXPORT std::optional<double> parse_double(std::string_view text);
BENCH_EXPORT std::optional<bool> parse_bool(std::string_view text);

}  // namespace bench
