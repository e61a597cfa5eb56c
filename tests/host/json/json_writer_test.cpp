// JsonOut's formats: the layout, and how non-finite numbers and invalid UTF-8 are written.
#include "json/json_writer.hpp"

#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "json/json_parse.hpp"

namespace {

using benchhost::JsonFormat;
using benchhost::JsonOut;

constexpr double infinite = std::numeric_limits<double>::infinity();

// One document with every kind of value, written in `format`.
std::string sample(JsonFormat format) {
    JsonOut out(format);
    out.start_object();
    out.field("text", "caf\xC3\xA9 \xFF!");
    out.field("int", 3);
    out.field("size", std::size_t{18446744073709551615ULL});
    out.field("half", 0.5);
    out.key("odd");
    out.numbers({std::nan(""), infinite, -infinite, 1.0});
    out.field("flag", true);
    out.key("map");
    out.string_map({{"b", "2"}, {"a", "1"}});
    out.key("list");
    out.strings({});
    out.end_object();
    return out.json();
}

TEST(JsonWriter, ReportFormatIsPrettyStrictJson) {
    EXPECT_EQ(sample(benchhost::report_json),
              "{\n"
              "  \"text\": \"caf\xC3\xA9 \xEF\xBF\xBD!\",\n"
              "  \"int\": 3,\n"
              "  \"size\": 18446744073709551615,\n"
              "  \"half\": 0.5,\n"
              "  \"odd\": [\n"
              "    null,\n"
              "    null,\n"
              "    null,\n"
              "    1.0\n"
              "  ],\n"
              "  \"flag\": true,\n"
              "  \"map\": {\n"
              "    \"a\": \"1\",\n"
              "    \"b\": \"2\"\n"
              "  },\n"
              "  \"list\": []\n"
              "}");
    // Any strict reader reads it: RapidJSON's own parser, without the NaN extension.
    rapidjson::Document document;
    const std::string text = sample(benchhost::report_json);
    document.Parse<rapidjson::kParseValidateEncodingFlag>(text.data(), text.size());
    EXPECT_FALSE(document.HasParseError());
}

TEST(JsonWriter, ProtocolFormatIsCompactAndExact) {
    EXPECT_EQ(sample(benchhost::protocol_json),
              "{\"text\":\"caf\xC3\xA9 \xFF!\",\"int\":3,\"size\":18446744073709551615,\"half\":0.5,"
              "\"odd\":[NaN,Infinity,-Infinity,1.0],\"flag\":true,\"map\":{\"a\":\"1\",\"b\":\"2\"},\"list\":[]}");
}

TEST(JsonWriter, ExactValuesRoundTripThroughParseJson) {
    const double values[] = {std::nan(""), infinite, -infinite, 0.1, 1e-300, 123456789.123456789, -0.0, 5e-324};
    JsonOut out(benchhost::protocol_json);
    out.start_array();
    for (const double v : values) out.number(v);
    out.string("\xFE\xFF");
    out.end_array();
    rapidjson::Document document;
    ASSERT_EQ(benchhost::parse_json(out.json(), document), "");
    ASSERT_EQ(document.Size(), std::size(values) + 1);
    EXPECT_TRUE(std::isnan(document[0].GetDouble()));
    for (std::size_t i = 1; i < std::size(values); ++i) {
        const double back = document[static_cast<rapidjson::SizeType>(i)].GetDouble();
        EXPECT_EQ(back, values[i]) << i;
        EXPECT_EQ(std::signbit(back), std::signbit(values[i])) << i;
    }
    EXPECT_EQ(std::string(document[8].GetString()), "\xFE\xFF");
}

TEST(JsonWriter, LayoutAndValuesAreIndependent) {
    // Pretty with exact values (the plugin registry's cache): tokens in an indented document.
    JsonOut pretty_exact(JsonFormat{JsonFormat::Layout::pretty, JsonFormat::Values::exact});
    pretty_exact.start_object();
    pretty_exact.field("x", std::nan(""));
    pretty_exact.field("y", -infinite);
    pretty_exact.end_object();
    EXPECT_EQ(pretty_exact.json(), "{\n  \"x\": NaN,\n  \"y\": -Infinity\n}");

    JsonOut compact_strict(JsonFormat{JsonFormat::Layout::compact, JsonFormat::Values::strict});
    compact_strict.start_array();
    compact_strict.number(infinite);
    compact_strict.string("\xC0\xAF");  // an overlong '/'
    compact_strict.end_array();
    EXPECT_EQ(compact_strict.json(), "[null,\"\xEF\xBF\xBD\xEF\xBF\xBD\"]");
}

TEST(JsonWriter, TextEndsInANewline) {
    JsonOut out;  // report_json by default
    out.start_object();
    out.end_object();
    EXPECT_EQ(out.json(), "{}");
    EXPECT_EQ(out.text(), "{}\n");
}

TEST(JsonWriter, IntervalsAreAPairOrNull) {
    JsonOut out(benchhost::protocol_json);
    out.start_array();
    out.interval(bench::Interval{1.0, 2.0});
    out.interval(bench::Interval{});
    out.end_array();
    EXPECT_EQ(out.json(), "[[1.0,2.0],null]");
}

TEST(JsonWriter, FieldsOfListsMapsAndIntervalsAreWrittenAsTheirValues) {
    // Each field() of a list, map or interval writes what key() and the value's own call
    // write: the same bytes, in both formats.
    const std::vector<std::string> strings = {"a", "b\xFF"};
    const std::vector<double> numbers = {1.5, std::nan(""), -infinite};
    const std::vector<std::size_t> sizes = {0, 18446744073709551615ULL};
    const std::vector<long long> ids = {-1, 7};
    const std::map<std::string, std::string> facts = {{"b", "2"}, {"a", "1"}};
    const std::map<std::string, std::vector<double>> series = {{"y", {2.0}}, {"x", {}}};
    const std::map<std::string, std::map<std::string, bool>, std::less<>> nested = {{"m", {{"on", true}}}, {"e", {}}};
    for (const JsonFormat format : {benchhost::report_json, benchhost::protocol_json}) {
        JsonOut by_field(format);
        by_field.start_object();
        by_field.field("strings", strings);
        by_field.field("no_strings", std::vector<std::string>{});
        by_field.field("numbers", numbers);
        by_field.field("sizes", sizes);
        by_field.field("ids", ids);
        by_field.field("facts", facts);
        by_field.field("interval", bench::Interval{1.0, 2.0});
        by_field.field("no_interval", bench::Interval{});
        by_field.end_object();

        JsonOut by_hand(format);
        by_hand.start_object();
        by_hand.key("strings");
        by_hand.strings(strings);
        by_hand.key("no_strings");
        by_hand.strings({});
        by_hand.key("numbers");
        by_hand.numbers(numbers);
        by_hand.key("sizes");
        by_hand.start_array();
        for (const std::size_t n : sizes) by_hand.unsigned_integer(n);
        by_hand.end_array();
        by_hand.key("ids");
        by_hand.start_array();
        for (const long long id : ids) by_hand.integer(id);
        by_hand.end_array();
        by_hand.key("facts");
        by_hand.string_map(facts);
        by_hand.key("interval");
        by_hand.interval(bench::Interval{1.0, 2.0});
        by_hand.key("no_interval");
        by_hand.interval(bench::Interval{});
        by_hand.end_object();
        EXPECT_EQ(by_field.json(), by_hand.json());
    }

    // Maps of lists and of maps: an object per entry, in the map's order, with any comparator.
    JsonOut out(benchhost::protocol_json);
    out.start_object();
    out.field("series", series);
    out.field("nested", nested);
    out.field("sizes", sizes);
    out.field("numbers", numbers);
    out.end_object();
    EXPECT_EQ(out.json(),
              "{\"series\":{\"x\":[],\"y\":[2.0]},\"nested\":{\"e\":{},\"m\":{\"on\":true}},"
              "\"sizes\":[0,18446744073709551615],\"numbers\":[1.5,NaN,-Infinity]}");
}

}  // namespace

TEST(ParseJson, RefusesNestingDeeperThanTheLimitInsteadOfOverflowingTheStack) {
    rapidjson::Document document;
    const std::string deep_enough(benchhost::max_json_depth, '[');
    EXPECT_EQ(benchhost::parse_json(deep_enough + std::string(benchhost::max_json_depth, ']'), document), "");
    const std::string too_deep = std::string(100000, '[') + std::string(100000, ']');  // once overflowed the stack
    const std::string error = benchhost::parse_json(too_deep, document);
    EXPECT_NE(error.find("nested deeper than 256 levels"), std::string::npos) << error;
    EXPECT_NE(benchhost::parse_json(R"({"a":)" + std::string(300, '[') + std::string(300, ']') + "}", document)
                  .find("offset 261"),
              std::string::npos);
}
