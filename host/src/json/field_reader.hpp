// Reading JSON that benchhost did not necessarily write well: a worker's result, a
// journal line, a run folder's reports. Every value is reached through a FieldReader,
// which knows the path it was reached by and checks each type it is asked for, so that
// an error names the file and the field:
//
//   quoted (the worker protocol, the journal):  "<origin>: field 'series[2].unit' is missing"
//   dotted (the report files):                  "<origin>.benchmark_scenarios[0].status: must be a string"
//
// Unknown fields are never an error: readers ask only for what they know.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <bench/internal/statistics/bootstrap.hpp>

#include <rapidjson/document.h>

namespace benchhost {

class FieldReader {
public:
    enum class Style { quoted, dotted };

    /// Parses `json` with parse_json (json/json_parse.hpp): NaN and [-]Infinity are read,
    /// numbers at full precision. Throws std::runtime_error "<origin>: parse error at
    /// offset N: ..." (dotted: "<origin>: invalid JSON: parse error ...").
    static rapidjson::Document parse(std::string_view json, const std::string& origin, Style style = Style::quoted);

    /// The top of a parsed document, which must be an object.
    FieldReader(const rapidjson::Value& root, std::string origin, Style style = Style::quoted);

    const rapidjson::Value& value() const { return *value_; }
    /// The path from the top ("" there): "series[2].unit".
    const std::string& path() const { return path_; }

    /// Throws std::runtime_error about this value: `problem` is a predicate ("is
    /// missing", "must be ...", "has an unknown value 'x'").
    [[noreturn]] void fail(const std::string& problem) const;
    /// Throws with a sentence of its own: "<where>: <explanation>".
    [[noreturn]] void fail_because(const std::string& explanation) const;
    /// Throws "must be <what>", or at the top "expected <what> at the top level".
    [[noreturn]] void expected(const std::string& what) const;

    // ---- This value, of a type ---------------------------------------------------
    std::string as_string() const;
    bool as_bool() const;
    int as_int() const;
    long long as_int64() const;
    /// A number; null (what strict JSON writes for a value that was not finite) reads as NaN.
    double as_number() const;
    std::vector<double> as_numbers() const;
    /// An interval as JsonOut writes one: [low, high], or null for none (not valid).
    bench::Interval as_interval() const;
    std::vector<std::string> as_strings() const;
    std::map<std::string, std::string> as_string_map() const;
    /// This value checked to be an object (a reader of its fields) or an array.
    FieldReader as_object() const;
    FieldReader as_array() const;

    // ---- Parts of an object or an array --------------------------------------------
    bool has(const char* key) const { return value_->IsObject() && value_->HasMember(key); }
    /// The field `key`, which must be there.
    FieldReader operator[](const char* key) const;
    /// The element `index` of an array: "items[2]".
    FieldReader at(std::size_t index) const;
    /// The number of elements of an array.
    std::size_t size() const { return value_->Size(); }
    /// Calls `visit(name, field)` for each field of an object, in the order written.
    template <class Visit>
    void each_member(Visit&& visit) const {
        for (const auto& member : as_object().value_->GetObject()) {
            const std::string name(member.name.GetString(), member.name.GetStringLength());
            visit(name, FieldReader(*this, member.value, join(name)));
        }
    }

    // ---- Shorthands for a field ----------------------------------------------------
    std::string string(const char* key) const { return (*this)[key].as_string(); }
    std::string string_or(const char* key, std::string fallback) const {
        return has(key) ? string(key) : std::move(fallback);
    }
    bool boolean(const char* key) const { return (*this)[key].as_bool(); }
    int integer(const char* key) const { return (*this)[key].as_int(); }
    long long integer64(const char* key) const { return (*this)[key].as_int64(); }
    double number(const char* key) const { return (*this)[key].as_number(); }
    FieldReader object(const char* key) const { return (*this)[key].as_object(); }
    FieldReader array(const char* key) const { return (*this)[key].as_array(); }
    /// A string field read by `parse` (bench::parse_status, ...): "has an unknown value 'x'".
    template <class Parse>
    auto enumerated(const char* key, Parse&& parse) const {
        const FieldReader field = (*this)[key];
        const std::string text = field.as_string();
        const auto parsed = parse(text);
        if (!parsed) field.fail("has an unknown value '" + text + "'");
        return *parsed;
    }

private:
    struct Origin {
        std::string name;
        Style style;
    };
    FieldReader(const FieldReader& parent, const rapidjson::Value& value, std::string path)
        : value_(&value), path_(std::move(path)), origin_(parent.origin_) {}
    std::string join(std::string_view key) const;
    /// "<origin>: field 'p'" or "<origin>.p", without the problem.
    std::string where() const;

    const rapidjson::Value* value_;
    std::string path_;
    std::shared_ptr<const Origin> origin_;
};

}  // namespace benchhost
