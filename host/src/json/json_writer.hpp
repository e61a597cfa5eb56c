// Writing strict JSON: what every file benchhost writes for others to read goes through
// JsonOut. A number that is not finite is written as null, and text that is not valid
// UTF-8 has each bad byte replaced by U+FFFD, so that any JSON reader (Python's json,
// jq, a browser) reads every file.
#pragma once

#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/document.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <bench/internal/bootstrap.hpp>

namespace benchhost {

/// `text` with each byte that does not belong to a well-formed UTF-8 sequence (overlong
/// forms, surrogates and code points above U+10FFFF included) replaced with U+FFFD.
std::string valid_utf8(std::string_view text);

// A pretty-printed (indent 2) strict JSON document, written event by event.
class JsonOut {
public:
    JsonOut() : writer_(buffer_) { writer_.SetIndent(' ', 2); }

    void key(std::string_view name) {
        const std::string text = valid_utf8(name);
        writer_.Key(text.data(), static_cast<rapidjson::SizeType>(text.size()));
    }
    void string(std::string_view value) {
        const std::string text = valid_utf8(value);
        writer_.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
    }
    void number(double value) {
        if (std::isfinite(value)) {
            writer_.Double(value);
        } else {
            writer_.Null();
        }
    }
    void integer(long long value) { writer_.Int64(value); }
    void boolean(bool value) { writer_.Bool(value); }
    void null() { writer_.Null(); }
    /// An array of strings.
    void strings(const std::vector<std::string>& items) {
        start_array();
        for (const auto& item : items) string(item);
        end_array();
    }
    /// A confidence interval as [low, high], or null when it is not valid.
    void interval(const bench::Interval& interval) {
        if (!interval.valid()) {
            null();
            return;
        }
        start_array();
        number(interval.low);
        number(interval.high);
        end_array();
    }
    void start_object() { writer_.StartObject(); }
    void end_object() { writer_.EndObject(); }
    void start_array() { writer_.StartArray(); }
    void end_array() { writer_.EndArray(); }

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
        writer_.Uint64(value);
    }
    void field(std::string_view name, bool value) {
        key(name);
        boolean(value);
    }

    // Copies a parsed value, through the same string and number rules.
    void value(const rapidjson::Value& v) {
        switch (v.GetType()) {
            case rapidjson::kNullType: null(); break;
            case rapidjson::kFalseType: boolean(false); break;
            case rapidjson::kTrueType: boolean(true); break;
            case rapidjson::kStringType: string({v.GetString(), v.GetStringLength()}); break;
            case rapidjson::kNumberType:
                if (v.IsInt64()) {
                    integer(v.GetInt64());
                } else if (v.IsUint64()) {
                    writer_.Uint64(v.GetUint64());
                } else {
                    number(v.GetDouble());
                }
                break;
            case rapidjson::kArrayType:
                start_array();
                for (const auto& element : v.GetArray()) value(element);
                end_array();
                break;
            case rapidjson::kObjectType:
                start_object();
                for (const auto& member : v.GetObject()) {
                    key({member.name.GetString(), member.name.GetStringLength()});
                    value(member.value);
                }
                end_object();
                break;
        }
    }

    std::string text() const { return std::string(buffer_.GetString(), buffer_.GetSize()) + "\n"; }

private:
    rapidjson::StringBuffer buffer_;
    rapidjson::PrettyWriter<rapidjson::StringBuffer> writer_;
};


}  // namespace benchhost
