// Writing JSON: every JSON text benchhost writes goes through JsonOut. What it looks like
// is chosen by the format, once, when the JsonOut is made:
//
//   report_json    the files others read (plugin reports, summary, comparison.json):
//                  pretty-printed (indent 2) strict JSON. A number that is not finite is
//                  written as null, and text that is not valid UTF-8 has each bad byte
//                  replaced by U+FFFD, so that any JSON reader (Python's json, jq, a
//                  browser) reads every file.
//   protocol_json  what only benchhost reads back (the worker protocol, the run journal):
//                  compact, NaN and +-infinity as the tokens NaN / Infinity / -Infinity and
//                  text as its bytes, so that everything round-trips exactly through
//                  parse_json (json/json_parse.hpp).
//
// The layout and the values are chosen apart: the plugin registry's cache is pretty for
// people but exact (a plugin's path is looked up by its bytes).
//
// The blocks written in several files (json/scenario_json.hpp) take a JsonOut, so that
// one function writes a block in every format.
#pragma once

#include <concepts>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <bench/internal/statistics/bootstrap.hpp>

namespace benchhost {

/// `text` with each byte that does not belong to a well-formed UTF-8 sequence (overlong
/// forms, surrogates and code points above U+10FFFF included) replaced with U+FFFD.
std::string valid_utf8(std::string_view text);

struct JsonFormat {
    enum class Layout { pretty, compact };
    /// strict: non-finite numbers as null, invalid UTF-8 replaced. exact: NaN/Infinity
    /// tokens, text as it is (only parse_json reads it back).
    enum class Values { strict, exact };
    Layout layout;
    Values values;
};

inline constexpr JsonFormat report_json{JsonFormat::Layout::pretty, JsonFormat::Values::strict};
inline constexpr JsonFormat protocol_json{JsonFormat::Layout::compact, JsonFormat::Values::exact};

// A JSON document, written event by event.
class JsonOut {
public:
    explicit JsonOut(JsonFormat format = report_json);
    JsonOut(const JsonOut&) = delete;
    JsonOut& operator=(const JsonOut&) = delete;

    JsonFormat format() const { return format_; }

    void key(std::string_view name);
    void string(std::string_view value);
    /// A floating-point number; not finite: null, or a NaN/Infinity token (see the top).
    void number(double value);
    void integer(long long value) {
        visit([&](auto& w) { w.Int64(value); });
    }
    void unsigned_integer(unsigned long long value) {
        visit([&](auto& w) { w.Uint64(value); });
    }
    void boolean(bool value) {
        visit([&](auto& w) { w.Bool(value); });
    }
    void null() {
        visit([](auto& w) { w.Null(); });
    }
    /// An array of numbers.
    void numbers(const std::vector<double>& items);
    /// An array of strings.
    void strings(const std::vector<std::string>& items);
    /// An object of strings: {key: value, ...}.
    void string_map(const std::map<std::string, std::string>& map);
    /// A confidence interval as [low, high], or null when it is not valid.
    void interval(const bench::Interval& interval);
    void start_object() {
        visit([](auto& w) { w.StartObject(); });
    }
    void end_object() {
        visit([](auto& w) { w.EndObject(); });
    }
    void start_array() {
        visit([](auto& w) { w.StartArray(); });
    }
    void end_array() {
        visit([](auto& w) { w.EndArray(); });
    }

    void field(std::string_view name, std::string_view value) {
        key(name);
        string(value);
    }
    void field(std::string_view name, const char* value) { field(name, std::string_view(value)); }
    void field(std::string_view name, const std::string& value) { field(name, std::string_view(value)); }
    void field(std::string_view name, double value) {
        key(name);
        number(value);
    }
    void field(std::string_view name, int value) {
        key(name);
        integer(value);
    }
    void field(std::string_view name, long long value) {
        key(name);
        integer(value);
    }
    void field(std::string_view name, std::size_t value) {
        key(name);
        unsigned_integer(value);
    }
    void field(std::string_view name, bool value) {
        key(name);
        boolean(value);
    }
    /// An array of numbers; not finite: as number() writes it.
    void field(std::string_view name, const std::vector<double>& items) {
        key(name);
        numbers(items);
    }
    /// An array of integers: counts, indices, bit masks.
    template <std::integral Integer>
    requires(!std::same_as<Integer, bool>) void field(std::string_view name, const std::vector<Integer>& items) {
        key(name);
        start_array();
        for (const Integer item : items) {
            if constexpr (std::unsigned_integral<Integer>) unsigned_integer(item);
            else integer(item);
        }
        end_array();
    }
    void field(std::string_view name, const std::vector<std::string>& items) {
        key(name);
        strings(items);
    }
    /// A confidence interval as [low, high], or null when it is not valid.
    void field(std::string_view name, const bench::Interval& value) {
        key(name);
        interval(value);
    }
    /// An object with a member per entry, in the map's order, each value written as field()
    /// writes it: {key: value, ...}. Values that are maps nest.
    template <class Value, class Compare>
    void field(std::string_view name, const std::map<std::string, Value, Compare>& map) {
        key(name);
        start_object();
        for (const auto& [member, value] : map) field(member, value);
        end_object();
    }

    /// The document as written.
    std::string json() const { return std::string(buffer_.GetString(), buffer_.GetSize()); }
    /// The document with a final newline: a file's content, or a line of JSON Lines.
    std::string text() const { return json() + "\n"; }

private:
    // RapidJSON 1.1's PrettyWriter does not compile with kWriteNanAndInfFlag (it drops the
    // flags when naming its base class), so number() writes the tokens itself, as raw values.
    using Compact = rapidjson::Writer<rapidjson::StringBuffer>;
    using Pretty = rapidjson::PrettyWriter<rapidjson::StringBuffer>;

    template <class F>
    void visit(F&& call) {
        std::visit(call, writer_);
    }

    JsonFormat format_;
    rapidjson::StringBuffer buffer_;
    std::variant<Compact, Pretty> writer_;
};

}  // namespace benchhost
