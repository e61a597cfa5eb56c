#include "json/report_schema.hpp"

#include <memory>
#include <stdexcept>

#include <rapidjson/pointer.h>
#include <rapidjson/schema.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "json/json_parse.hpp"

namespace benchhost {
namespace {

// A schema document and its compiled form. RapidJSON 1.1 validates `patternProperties`
// against the wrong schema, so docs/schema does not use it (its README).
struct CompiledSchema {
    rapidjson::Document document;
    std::unique_ptr<rapidjson::SchemaDocument> compiled;

    CompiledSchema(std::string_view text, const std::string& name) {
        if (const std::string error = parse_json(text, document); !error.empty())
            throw std::logic_error("the embedded " + name + ": " + error);
        compiled = std::make_unique<rapidjson::SchemaDocument>(document);
    }
    /// A schema of its own for `part` of `root` (an alternative of a "oneOf"), with the
    /// root's "definitions" so that its "$ref"s still resolve.
    CompiledSchema(const rapidjson::Value& root, const rapidjson::Value& part) {
        document.CopyFrom(part, document.GetAllocator());
        if (document.IsObject() && root.HasMember("definitions") && !document.HasMember("definitions"))
            document.AddMember("definitions", rapidjson::Value(root["definitions"], document.GetAllocator()),
                               document.GetAllocator());
        compiled = std::make_unique<rapidjson::SchemaDocument>(document);
    }
};

const CompiledSchema& compiled_schema(ReportSchema schema) {
    static const CompiledSchema report(embedded_schema_text(ReportSchema::report),
                                       schema_file_name(ReportSchema::report));
    static const CompiledSchema summary(embedded_schema_text(ReportSchema::summary),
                                        schema_file_name(ReportSchema::summary));
    static const CompiledSchema comparison(embedded_schema_text(ReportSchema::comparison),
                                           schema_file_name(ReportSchema::comparison));
    switch (schema) {
        case ReportSchema::report:
            return report;
        case ReportSchema::summary:
            return summary;
        case ReportSchema::comparison:
            return comparison;
    }
    return report;
}

std::string compact(const rapidjson::Value& value, std::size_t limit = 120) {
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer, rapidjson::UTF8<>, rapidjson::UTF8<>, rapidjson::CrtAllocator,
                      rapidjson::kWriteNanAndInfFlag>
        writer(buffer);
    value.Accept(writer);
    std::string text(buffer.GetString(), buffer.GetSize());
    return text.size() > limit ? text.substr(0, limit) + "..." : text;
}

const char* type_name(const rapidjson::Value& value) {
    if (value.IsNull()) return "null";
    if (value.IsBool()) return "boolean";
    if (value.IsInt64() || value.IsUint64()) return "integer";
    if (value.IsNumber()) return "number";
    if (value.IsString()) return "string";
    return value.IsArray() ? "array" : "object";
}

std::string pointer_text(const rapidjson::Pointer& pointer) {
    rapidjson::StringBuffer buffer;
    pointer.Stringify(buffer);
    return buffer.GetSize() == 0 ? "/" : std::string(buffer.GetString(), buffer.GetSize());
}

/// A pointer relative to `outer` made absolute ("/" is the root).
std::string under(const std::string& outer, const std::string& inner) {
    if (outer == "/") return inner;
    return inner == "/" ? outer : outer + inner;
}

/// How the value of a keyword such as "minimum" reads: "at least ".
std::string bound(const std::string& keyword) {
    if (keyword == "minimum" || keyword == "minItems" || keyword == "minLength") return "at least ";
    if (keyword == "maximum" || keyword == "maxItems" || keyword == "maxLength") return "at most ";
    if (keyword == "pattern") return "to match ";
    return keyword + " ";
}

std::string violation(const rapidjson::Value& schema_root, const rapidjson::SchemaDocument& compiled,
                      const rapidjson::Value& value, int depth) {
    rapidjson::SchemaValidator validator(compiled);
    if (value.Accept(validator)) return {};

    const rapidjson::Pointer at = validator.GetInvalidDocumentPointer();
    const std::string keyword = validator.GetInvalidSchemaKeyword();
    const std::string where = pointer_text(at);
    const rapidjson::Value* bad = at.Get(value);
    const rapidjson::Value* rule_object = validator.GetInvalidSchemaPointer().Get(schema_root);
    const rapidjson::Value* rule =
        rule_object != nullptr && rule_object->IsObject() && rule_object->HasMember(keyword.c_str())
            ? &(*rule_object)[keyword.c_str()]
            : nullptr;
    std::string message = where + ": " + keyword;
    if (bad == nullptr || rule == nullptr) return message;

    if (keyword == "required") {
        std::string missing;
        for (const auto& name : rule->GetArray()) {
            if (!bad->IsObject() || !name.IsString() || bad->HasMember(name)) continue;
            missing += (missing.empty() ? "'" : ", '") + std::string(name.GetString(), name.GetStringLength()) + "'";
        }
        return message + ": missing field " + missing;
    }
    if (keyword == "additionalProperties" && at.GetTokenCount() > 0) {
        const auto& token = at.GetTokens()[at.GetTokenCount() - 1];
        return message + ": field '" + std::string(token.name, token.length) + "' is not allowed here";
    }
    if (keyword == "type")
        return message + ": expected " + compact(*rule) + ", got " + type_name(*bad) + " " + compact(*bad);
    if (keyword == "enum") return message + ": " + compact(*bad) + " is not one of " + compact(*rule);
    if ((keyword == "oneOf" || keyword == "anyOf") && rule->IsArray() && depth < 8) {
        std::string reasons;
        int matching = 0, index = 0;
        for (const auto& alternative : rule->GetArray()) {
            const CompiledSchema part(schema_root, alternative);
            const std::string why = violation(part.document, *part.compiled, *bad, depth + 1);
            std::string label = std::to_string(++index);
            if (alternative.IsObject() && alternative.HasMember("$ref")) label += " " + compact(alternative["$ref"]);
            if (why.empty()) ++matching;
            else reasons += "; as " + label + ": " + under(where, why);
        }
        return message + (matching > 1 ? ": matches more than one alternative" : ": matches no alternative" + reasons);
    }
    return message + ": expected " + bound(keyword) + compact(*rule) + ", got " + compact(*bad);
}

}  // namespace

const char* schema_file_name(ReportSchema schema) {
    switch (schema) {
        case ReportSchema::report:
            return "report.schema.json";
        case ReportSchema::summary:
            return "summary.schema.json";
        case ReportSchema::comparison:
            return "comparison.schema.json";
    }
    return "report.schema.json";
}

std::string schema_violation(const rapidjson::Value& document, ReportSchema schema) {
    const CompiledSchema& compiled = compiled_schema(schema);
    return violation(compiled.document, *compiled.compiled, document, 0);
}

}  // namespace benchhost
