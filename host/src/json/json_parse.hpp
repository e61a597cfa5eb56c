// Parsing JSON that benchhost reads back (worker results, reports, caches): RapidJSON
// with its number conversion replaced (see json_parse.cpp).
#pragma once

#include <string>
#include <string_view>

#include <rapidjson/document.h>

namespace benchhost {

/// Parses `json` into `document`, reading NaN and [-]Infinity too. Returns "" on
/// success, else "parse error at offset N: <RapidJSON's message>".
std::string parse_json(std::string_view json, rapidjson::Document& document);

}  // namespace benchhost
