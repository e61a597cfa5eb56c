#include "json/field_reader.hpp"

#include <limits>
#include <stdexcept>

#include "json/json_parse.hpp"

namespace benchhost {

rapidjson::Document FieldReader::parse(std::string_view json, const std::string& origin, Style style) {
    rapidjson::Document document;
    if (const std::string error = parse_json(json, document); !error.empty())
        throw std::runtime_error(origin + (style == Style::dotted ? ": invalid JSON: " : ": ") + error);
    return document;
}

FieldReader::FieldReader(const rapidjson::Value& root, std::string origin, Style style)
    : value_(&root), origin_(std::make_shared<const Origin>(Origin{std::move(origin), style})) {
    if (!root.IsObject()) expected("an object");
}

std::string FieldReader::join(std::string_view key) const {
    return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

std::string FieldReader::where() const {
    if (path_.empty()) return origin_->name;
    if (origin_->style == Style::dotted) return origin_->name + "." + path_;
    return origin_->name + ": field '" + path_ + "'";
}

void FieldReader::fail(const std::string& problem) const {
    const bool quoted_field = origin_->style == Style::quoted && !path_.empty();
    throw std::runtime_error(where() + (quoted_field ? " " : ": ") + problem);
}

void FieldReader::fail_because(const std::string& explanation) const {
    throw std::runtime_error(where() + ": " + explanation);
}

void FieldReader::expected(const std::string& what) const {
    if (origin_->style == Style::quoted && path_.empty()) fail("expected " + what + " at the top level");
    fail("must be " + what);
}

std::string FieldReader::as_string() const {
    if (!value_->IsString()) expected("a string");
    return {value_->GetString(), value_->GetStringLength()};
}

bool FieldReader::as_bool() const {
    if (!value_->IsBool()) expected("true or false");
    return value_->GetBool();
}

int FieldReader::as_int() const {
    if (!value_->IsInt()) expected("an integer");
    return value_->GetInt();
}

long long FieldReader::as_int64() const {
    if (!value_->IsInt64()) expected("an integer");
    return value_->GetInt64();
}

double FieldReader::as_number() const {
    if (value_->IsNull()) return std::numeric_limits<double>::quiet_NaN();
    if (!value_->IsNumber()) expected("a number or null");
    return value_->GetDouble();
}

std::vector<double> FieldReader::as_numbers() const {
    const FieldReader array = as_array();
    std::vector<double> out;
    out.reserve(array.size());
    for (std::size_t i = 0; i < array.size(); ++i) out.push_back(array.at(i).as_number());
    return out;
}

bench::Interval FieldReader::as_interval() const {
    if (value_->IsNull()) return {};
    const FieldReader array = as_array();
    if (array.size() != 2) expected("[low, high] or null");
    return {array.at(0).as_number(), array.at(1).as_number()};
}

std::vector<std::string> FieldReader::as_strings() const {
    const FieldReader array = as_array();
    std::vector<std::string> out;
    out.reserve(array.size());
    for (std::size_t i = 0; i < array.size(); ++i) out.push_back(array.at(i).as_string());
    return out;
}

std::map<std::string, std::string> FieldReader::as_string_map() const {  // the first of a name wins
    std::map<std::string, std::string> out;
    as_object().each_member(
        [&](const std::string& name, const FieldReader& field) { out.emplace(name, field.as_string()); });
    return out;
}

FieldReader FieldReader::as_object() const {
    if (!value_->IsObject()) expected("an object");
    return *this;
}

FieldReader FieldReader::as_array() const {
    if (!value_->IsArray()) expected("an array");
    return *this;
}

FieldReader FieldReader::operator[](const char* key) const {
    const FieldReader object = as_object();
    const auto it = value_->FindMember(key);
    if (it == value_->MemberEnd()) FieldReader(*this, *value_, join(key)).fail("is missing");
    return FieldReader(object, it->value, join(key));
}

FieldReader FieldReader::at(std::size_t index) const {
    if (index >= as_array().size()) fail("has no element " + std::to_string(index));
    return FieldReader(*this, (*value_)[static_cast<rapidjson::SizeType>(index)],
                       path_ + "[" + std::to_string(index) + "]");
}

}  // namespace benchhost
