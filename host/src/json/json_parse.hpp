// Parsing JSON that benchhost reads back (worker results, reports, caches): RapidJSON
// with its number conversion replaced (see json_parse.cpp).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <rapidjson/document.h>

namespace benchhost {

/// Objects and arrays nested deeper than this are refused (the parser recurses per level).
inline constexpr std::size_t max_json_depth = 256;

/// Parses `json` into `document`, reading NaN and [-]Infinity too. Returns "" on
/// success, else "parse error at offset N: <RapidJSON's message>" (or "...: nested
/// deeper than 256 levels").
std::string parse_json(std::string_view json, rapidjson::Document& document);

}  // namespace benchhost
