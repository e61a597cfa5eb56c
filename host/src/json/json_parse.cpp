#include "json/json_parse.hpp"

#include <locale.h>
#include <charconv>
#include <clocale>
#include <cstdint>
#include <cstdlib>
#include <limits>

#include <rapidjson/encodedstream.h>
#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

namespace benchhost {

namespace {

// RapidJSON 1.1.0 (Debian's) has bugs in its full-precision conversion of decimal text
// to double, found by tests/fuzz: a zero written with an exponent or more than 22
// decimals ("0e100") goes through __builtin_clzll(0) and becomes garbage such as
// -1.99e146 (Tencent/rapidjson#1249, #1441), and a long mantissa with a large exponent
// ("666...6661e300") reads past the end of its table of powers of ten. So the reader hands
// numbers over as text and this filter converts them: integers that fit in 64 bits as
// RapidJSON does (Int/Uint when 32 bits suffice, else Int64/Uint64), every other number
// with glibc's strtod in the "C" locale, which rounds correctly (out of range: +-inf, or
// 0 and subnormals on underflow) and reads NaN and [-]Inf[inity] as well.
class NumberFilter {
public:
    explicit NumberFilter(rapidjson::Document& out) : out_(out) {}

    bool RawNumber(const char* text, rapidjson::SizeType length, bool /*copy*/) {
        const std::string number(text, length);  // syntax already checked by the reader
        const char* const begin = number.data();
        const char* const end = begin + number.size();
        if (number.find_first_of(".eEIN") == std::string::npos) {
            if (number.front() == '-') {
                std::int64_t value = 0;
                const auto [ptr, ec] = std::from_chars(begin, end, value);
                if (ec == std::errc() && ptr == end) {
                    return value >= std::numeric_limits<std::int32_t>::min() ? out_.Int(static_cast<int>(value))
                                                                             : out_.Int64(value);
                }
            } else {
                std::uint64_t value = 0;
                const auto [ptr, ec] = std::from_chars(begin, end, value);
                if (ec == std::errc() && ptr == end) {
                    return value <= std::numeric_limits<std::uint32_t>::max() ? out_.Uint(static_cast<unsigned>(value))
                                                                              : out_.Uint64(value);
                }
            }
        }
        static const locale_t c_locale = newlocale(LC_ALL_MASK, "C", locale_t{});
        return out_.Double(strtod_l(begin, nullptr, c_locale));
    }

    bool Null() { return out_.Null(); }
    bool Bool(bool value) { return out_.Bool(value); }
    bool Int(int value) { return out_.Int(value); }
    bool Uint(unsigned value) { return out_.Uint(value); }
    bool Int64(std::int64_t value) { return out_.Int64(value); }
    bool Uint64(std::uint64_t value) { return out_.Uint64(value); }
    bool Double(double value) { return out_.Double(value); }
    bool String(const char* text, rapidjson::SizeType length, bool copy) { return out_.String(text, length, copy); }
    bool StartObject() { return enter() && out_.StartObject(); }
    bool Key(const char* text, rapidjson::SizeType length, bool copy) { return out_.Key(text, length, copy); }
    bool EndObject(rapidjson::SizeType members) {
        --depth_;
        return out_.EndObject(members);
    }
    bool StartArray() { return enter() && out_.StartArray(); }
    bool EndArray(rapidjson::SizeType elements) {
        --depth_;
        return out_.EndArray(elements);
    }

    /// Whether parsing stopped at a value nested deeper than max_json_depth.
    bool too_deep() const { return too_deep_; }

private:
    // RapidJSON's reader recurses once per level: a few thousand '[' overflow the stack
    // (found by tests/fuzz). None of benchhost's files nests more than a few levels.
    bool enter() {
        if (++depth_ <= max_json_depth) return true;
        too_deep_ = true;
        return false;
    }

    rapidjson::Document& out_;
    std::size_t depth_ = 0;
    bool too_deep_ = false;
};

}  // namespace

std::string parse_json(std::string_view json, rapidjson::Document& document) {
    rapidjson::ParseResult result;
    bool too_deep = false;
    auto generate = [&](rapidjson::Document& target) {
        rapidjson::MemoryStream bytes(json.data(), json.size());
        rapidjson::EncodedInputStream<rapidjson::UTF8<>, rapidjson::MemoryStream> input(bytes);
        NumberFilter filter(target);
        rapidjson::Reader reader;
        result = reader.Parse<rapidjson::kParseFullPrecisionFlag | rapidjson::kParseNanAndInfFlag |
                              rapidjson::kParseNumbersAsStringsFlag>(input, filter);
        too_deep = filter.too_deep();
        return !result.IsError();
    };
    document.Populate(generate);
    if (!result.IsError()) return {};
    if (too_deep)
        return "parse error at offset " + std::to_string(result.Offset()) + ": nested deeper than " +
               std::to_string(max_json_depth) + " levels";
    return "parse error at offset " + std::to_string(result.Offset()) + ": " +
           rapidjson::GetParseError_En(result.Code());
}

}  // namespace benchhost
