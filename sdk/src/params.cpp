#include <bench/params.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <stdexcept>

namespace bench {

namespace {

std::string lower(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

[[noreturn]] void wrong_type(std::string_view key, std::string_view value, std::string_view wanted) {
    throw std::invalid_argument("parameter '" + std::string(key) + "': '" + std::string(value) + "' is not " +
                                std::string(wanted));
}

const std::string& single(std::string_view key, const Params::Values& values) {
    if (values.size() != 1)
        throw std::invalid_argument("parameter '" + std::string(key) + "' is a list of " +
                                    std::to_string(values.size()) + " values, expected a single value");
    return values.front();
}

/// The parameter's single value, parsed; std::invalid_argument naming the key when it is not `wanted`.
template <class Parse>
auto convert_single(std::string_view key, const Params::Values& values, Parse parse, std::string_view wanted) {
    const std::string& text = single(key, values);
    auto parsed = parse(text);
    if (!parsed) wrong_type(key, text, wanted);
    return *parsed;
}

template <class T, class Parse>
std::vector<T> convert_list(std::string_view key, const Params::Values& values, Parse parse, std::string_view wanted) {
    std::vector<T> out;
    out.reserve(values.size());
    for (const auto& value : values) {
        auto parsed = parse(value);
        if (!parsed) wrong_type(key, value, wanted);
        out.push_back(*parsed);
    }
    return out;
}

/// The whole of `text` as a T (std::from_chars, a leading '+' allowed), or nothing.
template <class T>
std::optional<T> parse_number(std::string_view text) {
    T value{};
    const char* end = text.data() + text.size();
    if (!text.empty() && text.front() == '+') text.remove_prefix(1);
    auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (text.empty() || ec != std::errc() || ptr != end) return std::nullopt;
    return value;
}

}  // namespace

std::optional<long long> parse_int(std::string_view text) { return parse_number<long long>(text); }

std::optional<double> parse_double(std::string_view text) {
    const std::optional<double> value = parse_number<double>(text);
    if (value && !std::isfinite(*value)) return std::nullopt;
    return value;
}

std::optional<bool> parse_bool(std::string_view text) {
    const std::string t = lower(text);
    if (t == "true" || t == "yes" || t == "on" || t == "1") return true;
    if (t == "false" || t == "no" || t == "off" || t == "0") return false;
    return std::nullopt;
}

void Params::set(std::string key, Values values) { values_[std::move(key)] = std::move(values); }
void Params::set(std::string key, std::string value) { values_[std::move(key)] = Values{std::move(value)}; }
bool Params::contains(std::string_view key) const { return find(key) != nullptr; }

const Params::Values* Params::find(std::string_view key) const {
    auto it = values_.find(key);
    return it == values_.end() ? nullptr : &it->second;
}

std::string Params::get_string(std::string_view key, std::string_view fallback) const {
    const Values* v = find(key);
    return v ? single(key, *v) : std::string(fallback);
}

long long Params::get_int(std::string_view key, long long fallback) const {
    const Values* v = find(key);
    return v ? convert_single(key, *v, parse_int, "an integer") : fallback;
}

double Params::get_double(std::string_view key, double fallback) const {
    const Values* v = find(key);
    return v ? convert_single(key, *v, parse_double, "a number") : fallback;
}

bool Params::get_bool(std::string_view key, bool fallback) const {
    const Values* v = find(key);
    return v ? convert_single(key, *v, parse_bool, "a boolean (true or false)") : fallback;
}

std::vector<long long> Params::get_int_list(std::string_view key, std::vector<long long> fallback) const {
    const Values* v = find(key);
    return v ? convert_list<long long>(key, *v, parse_int, "an integer") : fallback;
}

std::vector<double> Params::get_double_list(std::string_view key, std::vector<double> fallback) const {
    const Values* v = find(key);
    return v ? convert_list<double>(key, *v, parse_double, "a number") : fallback;
}

std::vector<std::string> Params::get_string_list(std::string_view key, std::vector<std::string> fallback) const {
    const Values* v = find(key);
    return v ? *v : fallback;
}

}  // namespace bench
