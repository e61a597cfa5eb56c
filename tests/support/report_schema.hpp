// Checks report files against the JSON Schemas in docs/schema (draft-04, validated with
// RapidJSON's SchemaValidator): benchmark_summary.json against summary.schema.json and
// each plugin report <plugin>/<plugin>_<timestamp>.json against report.schema.json.
//
// test_support.hpp's run_process() calls expect_host_output_matches_schema() after every
// run of the benchhost binary, so every run folder an end-to-end test produces is
// validated; tests that write reports another way call expect_reports_match_schema().
//
// A failure names the file, the JSON pointer of the wrong value, the schema keyword that
// failed and, where RapidJSON 1.1 does not say it, what exactly is wrong (the missing
// fields of "required", the extra field of "additionalProperties", why each alternative
// of a "oneOf" does not match).
#pragma once

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/pointer.h>
#include <rapidjson/schema.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#ifndef BENCH_SCHEMA_DIR
#error "BENCH_SCHEMA_DIR must name docs/schema (tests/CMakeLists.txt defines it)"
#endif

namespace benchtest {

namespace schema_detail {

namespace fs = std::filesystem;

inline std::string file_text(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + path.string());
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

inline std::string compact(const rapidjson::Value& value, std::size_t limit = 120) {
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
    value.Accept(writer);
    std::string text(buffer.GetString(), buffer.GetSize());
    if (text.size() > limit) text = text.substr(0, limit) + "...";
    return text;
}

inline std::string type_name(const rapidjson::Value& value) {
    if (value.IsNull()) return "null";
    if (value.IsBool()) return "boolean";
    if (value.IsInt64() || value.IsUint64()) return "integer";
    if (value.IsNumber()) return "number";
    if (value.IsString()) return "string";
    if (value.IsArray()) return "array";
    return "object";
}

inline std::string pointer_text(const rapidjson::Pointer& pointer) {
    rapidjson::StringBuffer buffer;
    pointer.Stringify(buffer);
    const std::string text(buffer.GetString(), buffer.GetSize());
    return text.empty() ? "/" : text;
}

/// Concatenates two JSON pointers given as text ("/a" + "/b"); "/" stands for the root.
inline std::string join_pointers(const std::string& outer, const std::string& inner) {
    if (outer == "/") return inner;
    if (inner == "/") return outer;
    return outer + inner;
}

/// A schema of its own for `subschema`, a part of `root`: the part, with the root's
/// "definitions" so that its "$ref"s still resolve.
inline void standalone_schema(const rapidjson::Value& root, const rapidjson::Value& subschema,
                              rapidjson::Document& out) {
    out.CopyFrom(subschema, out.GetAllocator());
    if (!out.IsObject() || !root.IsObject() || !root.HasMember("definitions") || out.HasMember("definitions")) return;
    rapidjson::Value definitions(root["definitions"], out.GetAllocator());
    out.AddMember("definitions", definitions, out.GetAllocator());
}

/// Empty when `value` matches `schema` (a whole schema document); else "<pointer>:
/// <keyword>: <what is wrong>", the pointer relative to `value`.
inline std::string violation(const rapidjson::Document& schema, const rapidjson::Value& value, int depth = 0) {
    const rapidjson::SchemaDocument compiled(schema);
    rapidjson::SchemaValidator validator(compiled);
    if (value.Accept(validator)) return {};

    const rapidjson::Pointer document_pointer = validator.GetInvalidDocumentPointer();
    const rapidjson::Pointer schema_pointer = validator.GetInvalidSchemaPointer();
    const std::string keyword = validator.GetInvalidSchemaKeyword();
    const std::string where = pointer_text(document_pointer);
    const rapidjson::Value* bad = document_pointer.Get(value);
    const rapidjson::Value* rule = schema_pointer.Get(schema);
    std::string message = where + ": " + keyword;

    if (keyword == "required" && rule != nullptr && bad != nullptr && bad->IsObject() && rule->HasMember("required")) {
        std::string missing;
        for (const auto& name : (*rule)["required"].GetArray())
            if (!bad->HasMember(name)) missing += (missing.empty() ? "'" : ", '") + std::string(name.GetString()) + "'";
        message += ": missing field " + missing;
    } else if (keyword == "additionalProperties" && document_pointer.GetTokenCount() > 0) {
        const auto& token = document_pointer.GetTokens()[document_pointer.GetTokenCount() - 1];
        message += ": field '" + std::string(token.name, token.length) + "' is not allowed here";
        if (rule != nullptr && rule->IsObject() && rule->HasMember("properties")) {
            std::string known;
            for (const auto& property : (*rule)["properties"].GetObject())
                known += (known.empty() ? "" : ", ") + std::string(property.name.GetString());
            message += " (known fields: " + known + ")";
        }
    } else if (keyword == "type" && bad != nullptr && rule != nullptr && rule->HasMember("type")) {
        message += ": expected " + compact((*rule)["type"]) + ", got " + type_name(*bad) + " " + compact(*bad);
    } else if (keyword == "enum" && bad != nullptr && rule != nullptr && rule->HasMember("enum")) {
        message += ": " + compact(*bad) + " is not one of " + compact((*rule)["enum"]);
    } else if ((keyword == "oneOf" || keyword == "anyOf") && bad != nullptr && rule != nullptr &&
               rule->HasMember(keyword.c_str()) && depth < 8) {
        // Says why each alternative does not match.
        std::string reasons;
        int matching = 0, index = 0;
        for (const auto& alternative : (*rule)[keyword.c_str()].GetArray()) {
            rapidjson::Document sub;
            standalone_schema(schema, alternative, sub);
            const std::string why = violation(sub, *bad, depth + 1);
            std::string label = std::to_string(++index);
            if (alternative.IsObject() && alternative.HasMember("$ref")) label += " " + compact(alternative["$ref"]);
            if (why.empty()) {
                ++matching;
            } else {
                reasons += "; as " + label + ": " + join_pointers(where, why);
            }
        }
        message += matching > 1 ? ": matches more than one alternative" : ": matches no alternative" + reasons;
    } else {
        message += " (schema " + pointer_text(schema_pointer) + ")";
        if (bad != nullptr) message += ", value " + compact(*bad);
    }
    return message;
}

struct Schema {
    rapidjson::Document document;
    explicit Schema(const char* name) {
        const fs::path path = fs::path(BENCH_SCHEMA_DIR) / name;
        const std::string text = file_text(path);
        document.Parse(text.data(), text.size());
        if (document.HasParseError())
            throw std::runtime_error(path.string() + ": invalid JSON at offset " +
                                     std::to_string(document.GetErrorOffset()) + ": " +
                                     rapidjson::GetParseError_En(document.GetParseError()));
    }
};

}  // namespace schema_detail

/// docs/schema/report.schema.json and summary.schema.json, parsed once.
inline const rapidjson::Document& report_schema() {
    static const schema_detail::Schema schema("report.schema.json");
    return schema.document;
}
inline const rapidjson::Document& summary_schema() {
    static const schema_detail::Schema schema("summary.schema.json");
    return schema.document;
}

/// docs/schema/comparison.schema.json (compare --json, run --baseline, ab), parsed once.
inline const rapidjson::Document& comparison_schema() {
    static const schema_detail::Schema schema("comparison.schema.json");
    return schema.document;
}

/// Empty when `value` matches `schema`; else the first violation (see the top of this file).
inline std::string schema_violation(const rapidjson::Document& schema, const rapidjson::Value& value) {
    return schema_detail::violation(schema, value);
}

/// Empty when the file is valid JSON matching `schema`; else what is wrong, the file first.
inline std::string file_schema_violation(const std::filesystem::path& file, const rapidjson::Document& schema) {
    std::string text;
    try {
        text = schema_detail::file_text(file);
    } catch (const std::exception& e) {
        return e.what();
    }
    rapidjson::Document document;
    document.Parse(text.data(), text.size());
    if (document.HasParseError())
        return file.string() + ": invalid JSON at offset " + std::to_string(document.GetErrorOffset()) + ": " +
               rapidjson::GetParseError_En(document.GetParseError());
    const std::string violation = schema_violation(schema, document);
    return violation.empty() ? violation : file.string() + ": " + violation;
}

/// Every problem with the report files of the run folder `run_dir`: benchmark_summary.json
/// against the summary schema, each plugin report (each file the summary names, and each
/// .json file in a subfolder) against the report schema. Empty when all match.
inline std::vector<std::string> run_folder_schema_violations(const std::filesystem::path& run_dir) {
    namespace fs = std::filesystem;
    std::vector<std::string> problems;
    const fs::path summary_file = run_dir / "benchmark_summary.json";
    if (const std::string why = file_schema_violation(summary_file, summary_schema()); !why.empty())
        problems.push_back(why);

    std::set<fs::path> reports;
    rapidjson::Document summary;
    try {
        const std::string text = schema_detail::file_text(summary_file);
        summary.Parse(text.data(), text.size());
    } catch (const std::exception&) {}
    if (!summary.HasParseError() && summary.IsObject() && summary.HasMember("results") &&
        summary["results"].IsArray()) {
        for (const auto& entry : summary["results"].GetArray()) {
            if (!entry.IsObject() || !entry.HasMember("report") || !entry["report"].IsString()) continue;
            const fs::path report = run_dir / entry["report"].GetString();
            if (!fs::exists(report)) {
                problems.push_back(summary_file.string() + ": names report " + entry["report"].GetString() +
                                   ", which does not exist");
                continue;
            }
            reports.insert(report.lexically_normal());
        }
    }
    std::error_code ec;
    for (const auto& folder : fs::directory_iterator(run_dir, ec)) {
        if (!folder.is_directory() || folder.is_symlink()) continue;
        for (const auto& file : fs::directory_iterator(folder.path(), ec))
            if (file.is_regular_file() && file.path().extension() == ".json")
                reports.insert(file.path().lexically_normal());
    }
    for (const auto& report : reports)
        if (const std::string why = file_schema_violation(report, report_schema()); !why.empty())
            problems.push_back(why);
    return problems;
}

/// A gtest failure per report file of `run_dir` that does not match its schema.
inline void expect_reports_match_schema(const std::filesystem::path& run_dir, const std::string& context = {}) {
    for (const std::string& problem : run_folder_schema_violations(run_dir))
        ADD_FAILURE() << "report does not match docs/schema: " << problem
                      << (context.empty() ? "" : "\n  (written by: " + context + ")");
}

/// After a run of the benchhost binary with `argv` (argv[0] the binary) in `cwd`:
/// validates the run folder it wrote into (--output-dir, --resume, else
/// benchmark_results/latest under cwd), when it holds a summary. Other subcommands
/// (list, export, ...) and --help are left alone.
inline void expect_host_output_matches_schema(const std::vector<std::string>& argv, const std::filesystem::path& cwd) {
    namespace fs = std::filesystem;
    std::string output, command_line, comparison_file, subcommand;
    bool first_word = true, help = false;
    for (std::size_t i = 0; i < argv.size(); ++i) {
        command_line += (i == 0 ? "" : " ") + argv[i];
        if (i == 0) continue;
        const std::string& arg = argv[i];
        if (first_word) subcommand = arg.starts_with("-") ? "run" : arg;
        first_word = false;
        if (arg == "--help" || arg == "-h" || arg == "--version") help = true;
        for (const char* option : {"--output-dir", "--resume"}) {
            const std::string prefix = std::string(option) + "=";
            if (arg == option && i + 1 < argv.size()) output = argv[i + 1];
            if (arg.starts_with(prefix)) output = arg.substr(prefix.size());
        }
        if (arg == "--json" && i + 1 < argv.size()) comparison_file = argv[i + 1];
    }
    if (help) return;
    const auto absolute = [&](fs::path path) { return path.is_relative() ? cwd / path : path; };
    const auto expect_comparison_matches = [&](const fs::path& file) {
        if (!fs::exists(file)) return;
        if (const std::string why = file_schema_violation(file, comparison_schema()); !why.empty())
            ADD_FAILURE() << "comparison does not match docs/schema: " << why << "\n  (written by: " << command_line
                          << ")";
    };
    if (subcommand == "compare" && !comparison_file.empty()) expect_comparison_matches(absolute(comparison_file));
    const auto expect_ab_folder_matches = [&](const fs::path& dir) {
        for (const char* side : {"base", "new"})
            if (fs::exists(dir / side / "benchmark_summary.json"))
                expect_reports_match_schema(dir / side, command_line);
        expect_comparison_matches(dir / "comparison.json");
    };
    if (subcommand == "ab" && !output.empty()) expect_ab_folder_matches(absolute(output));
    // bisect: an A/B folder per step.
    if (subcommand == "bisect" && !output.empty() && fs::is_directory(absolute(output) / "steps"))
        for (const auto& step : fs::directory_iterator(absolute(output) / "steps"))
            expect_ab_folder_matches(step.path());
    if (subcommand != "run") return;
    const fs::path dir = absolute(output.empty() ? fs::path("benchmark_results") / "latest" : fs::path(output));
    expect_comparison_matches(dir / "comparison.json");
    if (!fs::exists(dir / "benchmark_summary.json")) return;
    expect_reports_match_schema(dir, command_line);
}

}  // namespace benchtest
