// The checked reader: what each error says, in both styles.
#include "json/field_reader.hpp"

#include <cmath>
#include <functional>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "../../support/error_of.hpp"

namespace {

using benchhost::FieldReader;
using Style = FieldReader::Style;
using benchtest::error_of;

// Parses `json` and hands its top to `read`; returns the error, if any.
std::string read_error(const std::string& json, Style style, const std::function<void(const FieldReader&)>& read) {
    return error_of([&] {
        const rapidjson::Document document = FieldReader::parse(json, "origin", style);
        read(FieldReader(document, "origin", style));
    });
}

const char* const sample_json = R"({"name": "x", "count": 3, "big": 5000000000, "ratio": null, "flag": true,
                               "items": [{"unit": "ms"}, {"unit": 2}], "map": {"b": "1", "a": "2", "b": "3"},
                               "list": ["a", 1], "status": "great"})";

TEST(FieldReader, ReadsWhatIsThere) {
    const rapidjson::Document document = FieldReader::parse(sample_json, "origin");
    const FieldReader top(document, "origin");
    EXPECT_EQ(top.string("name"), "x");
    EXPECT_EQ(top.integer("count"), 3);
    EXPECT_EQ(top.integer64("big"), 5000000000LL);
    EXPECT_TRUE(std::isnan(top.number("ratio")));  // null: a value that was not finite
    EXPECT_EQ(top.number("count"), 3.0);
    EXPECT_TRUE(top.boolean("flag"));
    EXPECT_EQ(top.string_or("absent", "fallback"), "fallback");
    EXPECT_EQ(top.array("items").size(), 2u);
    EXPECT_EQ(top.array("items").at(0).string("unit"), "ms");
    EXPECT_EQ(top.array("items").at(1).path(), "items[1]");
    // Of a repeated key, the first wins.
    const std::map<std::string, std::string> map = top["map"].as_string_map();
    EXPECT_EQ(map, (std::map<std::string, std::string>{{"a", "2"}, {"b", "1"}}));
    std::string names;
    top.object("map").each_member([&](const std::string& name, const FieldReader& field) {
        names += name + "=" + field.as_string() + " ";
        EXPECT_EQ(field.path(), "map." + name);
    });
    EXPECT_EQ(names, "b=1 a=2 b=3 ");
}

TEST(FieldReader, QuotedErrorsNameTheFieldPath) {
    const auto error = [](const std::function<void(const FieldReader&)>& read) {
        return read_error(sample_json, Style::quoted, read);
    };
    EXPECT_EQ(error([](const FieldReader& r) { r.string("missing"); }), "origin: field 'missing' is missing");
    EXPECT_EQ(error([](const FieldReader& r) { r.integer("name"); }), "origin: field 'name' must be an integer");
    EXPECT_EQ(error([](const FieldReader& r) { r.integer("big"); }), "origin: field 'big' must be an integer");
    EXPECT_EQ(error([](const FieldReader& r) { r.number("name"); }), "origin: field 'name' must be a number or null");
    EXPECT_EQ(error([](const FieldReader& r) { r.boolean("count"); }), "origin: field 'count' must be true or false");
    EXPECT_EQ(error([](const FieldReader& r) { r.array("map"); }), "origin: field 'map' must be an array");
    EXPECT_EQ(error([](const FieldReader& r) { r.object("items"); }), "origin: field 'items' must be an object");
    EXPECT_EQ(error([](const FieldReader& r) { r.array("items").at(1).string("unit"); }),
              "origin: field 'items[1].unit' must be a string");
    EXPECT_EQ(error([](const FieldReader& r) { r.array("items").at(0).string("name"); }),
              "origin: field 'items[0].name' is missing");
    EXPECT_EQ(error([](const FieldReader& r) { r["list"].as_strings(); }), "origin: field 'list[1]' must be a string");
    EXPECT_EQ(error([](const FieldReader& r) { r["items"].as_numbers(); }),
              "origin: field 'items[0]' must be a number or null");
    EXPECT_EQ(error([](const FieldReader& r) { r["list"].as_string_map(); }), "origin: field 'list' must be an object");
    EXPECT_EQ(error([](const FieldReader& r) {
                  r.enumerated("status",
                               [](std::string_view s) { return s == "ok" ? std::optional<int>(1) : std::nullopt; });
              }),
              "origin: field 'status' has an unknown value 'great'");
    EXPECT_EQ(error([](const FieldReader& r) { r["map"].fail_because("a sentence of its own"); }),
              "origin: field 'map': a sentence of its own");
    EXPECT_EQ(error([](const FieldReader& r) { r.fail_because("about the whole"); }), "origin: about the whole");
}

TEST(FieldReader, DottedErrorsNameTheFileAndPath) {
    const auto error = [](const std::function<void(const FieldReader&)>& read) {
        return read_error(sample_json, Style::dotted, read);
    };
    EXPECT_EQ(error([](const FieldReader& r) { r.string("missing"); }), "origin.missing: is missing");
    EXPECT_EQ(error([](const FieldReader& r) { r.array("items").at(1).string("unit"); }),
              "origin.items[1].unit: must be a string");
    EXPECT_EQ(error([](const FieldReader& r) { r["map"].fail_because("a sentence of its own"); }),
              "origin.map: a sentence of its own");
}

TEST(FieldReader, TheTopMustBeAnObject) {
    EXPECT_EQ(read_error("[1]", Style::quoted, [](const FieldReader&) {}),
              "origin: expected an object at the top level");
    EXPECT_EQ(read_error("[1]", Style::dotted, [](const FieldReader&) {}), "origin: must be an object");
}

TEST(FieldReader, ParseErrorsGiveTheOffset) {
    EXPECT_EQ(read_error("{\"a\" 1}", Style::quoted, [](const FieldReader&) {}),
              "origin: parse error at offset 5: Missing a colon after a name of object member.");
    EXPECT_EQ(read_error("", Style::dotted, [](const FieldReader&) {}),
              "origin: invalid JSON: parse error at offset 0: The document is empty.");
    // NaN and Infinity are read (the worker protocol writes them).
    const rapidjson::Document document = FieldReader::parse(R"({"a": NaN, "b": -Infinity})", "origin");
    const FieldReader top(document, "origin");
    EXPECT_TRUE(std::isnan(top.number("a")));
    EXPECT_TRUE(std::isinf(top.number("b")));
}

}  // namespace
