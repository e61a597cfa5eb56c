// The JSON Schemas of the run folder's files (docs/schema, draft-04), compiled into the
// host at build time (host/CMakeLists.txt generates embedded_schemas.cpp from them), and
// validation against them with RapidJSON's SchemaValidator: json/report_reader.cpp checks
// every benchmark_summary.json and plugin report it reads.
#pragma once

#include <string>
#include <string_view>

#include <rapidjson/document.h>

namespace benchhost {

/// schema_version of the reports and the summary (docs/schema/README.md lists them):
/// 2 added series statistics (cv, ci95, outliers, stable), sampling, cold_start,
/// speedup_over_eager and rounds; 3 sharded and merged runs (run_metadata.shard, shards);
/// 4 the summary's success_rate over the scenarios that ran (null when none did),
/// and how each plugin was compiled (metadata.plugin_build, the summary's plugins);
/// 5 first_rounds; 6 the peak search (a scenario's peak_search); 7 the accuracy of
/// classifiers (a scenario's accuracy); 8 the batching options of the load
/// (metadata.config.load's max_batch, max_batch_wait_ms); 9 a profiled scenario's
/// profile (--profile); 10 a Python plugin's plugin_build (language, runtime); 11 the
/// run's own id (the summary's run_metadata.run_id); 12 when each sample ended
/// (sample_times_s), the block bootstrap's block, speed states and the speed reference;
/// 13 every series of a scenario in the summary's headline; 14 a distributed scenario's
/// world_size (its config's, the summary entry's) and per-rank series; 15 what a compiler
/// did (the summary entry's compiler, a scenario's info compiled_samples); 16 a
/// distributed scenario's stragglers and its scaling efficiency (the summary entry's).
inline constexpr int report_schema_version = 16;

/// comparison.json has a schema_version of its own (report/comparison_reporter.hpp).
enum class ReportSchema { report, summary, comparison };

/// "report.schema.json", "summary.schema.json" or "comparison.schema.json".
const char* schema_file_name(ReportSchema schema);

/// The text of docs/schema/<schema_file_name> as it was when the host was built.
std::string_view embedded_schema_text(ReportSchema schema);

/// Empty when `document` matches the schema; else the first violation: the JSON pointer
/// of the wrong value ("/" for the whole document), the keyword that failed and what the
/// schema expected, e.g. "/benchmark_scenarios/0/wall_time_s: type: expected
/// ["number","null"], got string "slow"". For "oneOf", why each alternative fails.
std::string schema_violation(const rapidjson::Value& document, ReportSchema schema);

}  // namespace benchhost
