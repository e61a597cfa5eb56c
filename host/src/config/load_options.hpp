// The serving load's options (docs/serving.md): read from the YAML (`load: server`,
// `target_qps: 50`, ...) and the command line (--load, --target-qps, ...) into
// RunOptions::load, the command line over the YAML; every scenario gets them
// (ScenarioConfig::load), and a benchmark that serves (Context::serve) runs under them.
#pragma once

#include <string>
#include <vector>

#include <bench/load.hpp>

namespace benchhost {

/// Each reads one option's text, or throws ConfigError: "<where>: <what is wrong>",
/// `where` naming the option ("option --target-qps") or the YAML key and its place.
bench::LoadMode load_mode_value(const std::string& where, const std::string& text);
double rate_value(const std::string& where, const std::string& text);  // queries/s, above 0
double burstiness_value(const std::string& where, const std::string& text);  // gamma shape, above 0
long long count_value(const std::string& where, const std::string& text, long long minimum);
double seconds_value(const std::string& where, const std::string& text);  // 0 to 86400
double duration_ms_value(const std::string& where, const std::string& text);  // with a unit: 1ms, 500us
double peak_precision_value(const std::string& where, const std::string& text);  // 5% or 0.05, above 0, below 1
/// "[pNN:]METRIC=BOUND,...": the bounds into load.slos, the percentile (0 without one)
/// into load.slo_percentile.
void slo_value(const std::string& where, const std::string& text, bench::LoadConfig& load);

/// The options together, once every layer is read: a server load needs a rate or
/// clients (not both), or --find-peak with an SLO; the options of one mode need that
/// mode. ConfigError naming the options otherwise.
void check_load(const bench::LoadConfig& load);

/// The load's options as the summary records them ("mode", "target_qps", ...): empty
/// without --load.
std::vector<std::pair<std::string, std::string>> describe_load(const bench::LoadConfig& load);

}  // namespace benchhost
