#include "report/report_figures.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <optional>
#include <sstream>
#include <stdexcept>

#include <bench/stopping_rule.hpp>

#include "analysis/scenario_statistics.hpp"

#include "util/append_unique.hpp"
#include "util/join.hpp"
#include "util/text_table.hpp"
#include "util/units.hpp"

namespace benchhost {
namespace {

const char* const throughput_series[] = {"throughput", "tokens_per_second"};

std::vector<std::pair<std::string, std::string>> machine_summary(const HardwareInfo& hw) {
    std::vector<std::pair<std::string, std::string>> lines;
    const auto add = [&](const char* label, const std::string& text) {
        if (!text.empty()) lines.emplace_back(label, text);
    };

    std::vector<std::string> cpu_details;
    if (const std::string n = hardware_fact(hw, "cpu", "logical_cores"); !n.empty())
        cpu_details.push_back(n + " logical cores");
    if (const std::string n = hardware_fact(hw, "cpu", "physical_cores"); !n.empty())
        cpu_details.push_back(n + " physical");
    if (const std::string n = hardware_fact(hw, "cpu", "cpus_available"); !n.empty())
        cpu_details.push_back(n + " available");
    if (const std::string f = hardware_fact(hw, "cpu", "frequency_scaling"); !f.empty())
        cpu_details.push_back("frequency scaling " + f);
    std::string cpu = hardware_fact(hw, "cpu", "model");
    if (!cpu_details.empty())
        cpu += (cpu.empty() ? "" : " (") + join_nonempty(cpu_details, ", ") + (cpu.empty() ? "" : ")");
    add("CPU", cpu);

    if (const std::string total = hardware_fact(hw, "memory", "total_mib"); !total.empty()) {
        char buffer[64];
        const double mib = std::atof(total.c_str());
        std::snprintf(buffer, sizeof(buffer), "%.1f GiB", mib / 1024);
        std::string memory = buffer;
        if (const std::string available = hardware_fact(hw, "memory", "available_mib"); !available.empty()) {
            std::snprintf(buffer, sizeof(buffer), " (%.1f GiB available)", std::atof(available.c_str()) / 1024);
            memory += buffer;
        }
        add("Memory", memory);
    }

    const std::string gpu_available = hardware_fact(hw, "gpu", "available");
    if (gpu_available == "yes") {
        std::string gpu = hardware_fact(hw, "gpu", "count");
        gpu = (gpu.empty() ? "" : gpu + " x ") + hardware_fact(hw, "gpu", "gpu0_name");
        if (const std::string memory = hardware_fact(hw, "gpu", "gpu0_memory_mib"); !memory.empty())
            gpu += " (" + memory + " MiB)";
        if (const std::string driver = hardware_fact(hw, "gpu", "driver_version"); !driver.empty())
            gpu += ", driver " + driver;
        if (const std::string cuda = hardware_fact(hw, "gpu", "cuda_driver_version"); !cuda.empty())
            gpu += ", CUDA " + cuda;
        add("GPU", gpu);
    } else if (!gpu_available.empty()) {
        const std::string reason = hardware_fact(hw, "gpu", "reason");
        add("GPU", "none" + (reason.empty() ? std::string() : " (" + reason + ")"));
    }

    std::string os = hardware_fact(hw, "os", "name");
    if (const std::string kernel = hardware_fact(hw, "os", "kernel"); !kernel.empty())
        os = join_nonempty({os, "kernel " + kernel}, ", ");
    os = join_nonempty({os, hardware_fact(hw, "os", "machine")}, ", ");
    add("OS", os);

    std::vector<std::string> build;
    build.push_back(hardware_fact(hw, "build", "build_type"));
    build.push_back(hardware_fact(hw, "build", "compiler"));
    if (const std::string sdk = hardware_fact(hw, "build", "sdk_version"); !sdk.empty()) {
        const std::string abi = hardware_fact(hw, "build", "sdk_abi");
        build.push_back("SDK " + sdk + (abi.empty() ? "" : " (ABI " + abi + ")"));
    }
    add("Build", join_nonempty(build, ", "));

    std::string torch = hardware_fact(hw, "libtorch", "torch_version");
    if (torch.empty()) torch = hardware_fact(hw, "libtorch", "version_at_build");
    add("LibTorch", torch);

    const std::string l1 = hardware_fact(hw, "load", "load_average_1m");
    if (!l1.empty())
        add("Load before the run", join_nonempty({l1, hardware_fact(hw, "load", "load_average_5m"),
                                                  hardware_fact(hw, "load", "load_average_15m")},
                                                 ", ") +
                                       " (1, 5, 15 min)");
    return lines;
}

// The sampling of the run's scenarios: one line when they all share it, else each way
// with the benchmarks sampled so.
std::string sampling_summary(const RunRecord& record) {
    std::vector<std::pair<std::string, std::vector<std::string>>> ways;  // text -> benchmark ids
    for (const ScenarioOutcome& outcome : record.outcomes) {
        const std::string text = sampling_text(outcome.config);
        auto way = std::find_if(ways.begin(), ways.end(), [&](const auto& w) { return w.first == text; });
        if (way == ways.end()) way = ways.insert(ways.end(), {text, {}});
        const std::string id = outcome.config.benchmark_id();
        append_unique(way->second, id);
    }
    if (ways.size() == 1) return ways.front().first;
    std::string out;
    for (const auto& [text, ids] : ways)
        out += (out.empty() ? "" : "; ") + text + " (" + join_nonempty(ids, ", ") + ")";
    return out;
}

struct SettingLabel {
    const char* key;
    const char* label;
    const char* when_empty;  // nullptr: left out when empty
};

// The options a run records (run_config), in the order and words the reports use; any
// other recorded option follows under its own name.
constexpr SettingLabel setting_labels[] = {
    {"rounds", "Rounds", nullptr},
    {"config_file", "Config file", "none"},
    {"include", "Include", "every benchmark"},
    {"exclude", "Exclude", "none"},
    {"categories", "Categories", "all"},
    {"enable_mock", "Mock plugins", nullptr},
    {"profile", "Profiled (--profile)", nullptr},
    {"isolation", "Isolation", nullptr},
    {"timeout_s", "Timeout per scenario (s; 0: none)", nullptr},
    {"memory_limit_mib", "Memory limit per worker (MiB; 0: none)", nullptr},
    {"memory_limit_by", "Memory limit enforced by", nullptr},
    {"monitor_interval_ms", "Monitor interval (ms; 0: off)", nullptr},
    {"lock_clocks", "GPU clocks locked (--lock-clocks)", nullptr},
    {"num_tokens_to_generate", "Tokens to generate", nullptr},
    {"model_id", "Model", nullptr},
    {"plugins_dir", "Plugins folder", nullptr},
    {"formats", "Other formats", nullptr},
    {"baseline", "Baseline", nullptr},
    {"regression_threshold", "Regression threshold", nullptr},
    {"fail_on_regression", "Fail on regression", nullptr},
    {"shard", "Shard", nullptr},
    {"shard_costs", "Shard costs from", nullptr},
    {"resumed_from", "Resumed from", nullptr},
    {"merged_from", "Merged from", nullptr},
    {"retry_failed", "Retry plugins remembered as crashing", nullptr},
    {"allow_untrusted_plugins", "Untrusted plugins allowed", nullptr},
};

// Options of the sampling: what the scenarios had is said instead (per-plugin settings of
// the config file may change it).
constexpr const char* sampling_keys[] = {"warmup_iterations", "measurement_iterations", "min_time_s", "max_time_s",
                                         "target_ci_width"};

// The words for an option the run recorded that setting_labels does not list: the values
// of an axis ("axes.dtype"), a parameter ("params.image_size"), what the config file sets
// for one plugin ("plugins.resnet50.axes.batch_size"); else its name.
std::string setting_label(std::string_view key) {
    if (key.starts_with("plugins.") && key.find('.', 8) != std::string_view::npos) {
        const std::size_t dot = key.find('.', 8);
        return "Plugin " + std::string(key.substr(8, dot - 8)) + ": " + setting_label(key.substr(dot + 1));
    }
    if (key.starts_with("axes.")) return "Values of " + std::string(key.substr(5));
    if (key.starts_with("params.")) return "Parameter " + std::string(key.substr(7));
    for (const SettingLabel& setting : setting_labels)
        if (key == setting.key) return setting.label;
    return std::string(key);
}

std::vector<std::pair<std::string, std::string>> settings_lines(const RunRecord& record) {
    std::vector<std::pair<std::string, std::string>> lines;
    if (!record.outcomes.empty()) lines.emplace_back("Sampling", sampling_summary(record));
    const auto& config = record.run_config;
    for (const SettingLabel& setting : setting_labels) {
        const auto it = config.find(setting.key);
        if (it == config.end()) continue;
        if (!it->second.empty()) lines.emplace_back(setting.label, it->second);
        else if (setting.when_empty != nullptr) lines.emplace_back(setting.label, setting.when_empty);
    }
    for (const auto& entry : config) {
        // Not structured bindings: clang before 16 cannot capture them in a lambda.
        const std::string& key = entry.first;
        const std::string& value = entry.second;
        const auto is = [&](const char* name) { return key == name; };
        if (value.empty() || is("command_line") || is("working_directory")) continue;
        if (std::any_of(std::begin(setting_labels), std::end(setting_labels),
                        [&](const SettingLabel& l) { return is(l.key); }))
            continue;
        const std::string_view last =
            std::string_view(key).substr(key.rfind('.') == std::string::npos ? 0 : key.rfind('.') + 1);
        const bool sampling =
            std::any_of(std::begin(sampling_keys), std::end(sampling_keys), [&](const char* k) { return last == k; });
        if (sampling && !record.outcomes.empty()) continue;
        lines.emplace_back(setting_label(key), value);
    }
    return lines;
}

// The axes of each scenario, the axes with one value in the whole run, and the tables.
void make_tables(RunFigures& figures) {
    std::vector<AxisValues> axes_of;
    axes_of.reserve(figures.scenarios.size());
    std::vector<std::pair<std::string, std::vector<std::string>>> run_values;  // axis -> its values, in order
    for (const ScenarioFigures& f : figures.scenarios) {
        axes_of.push_back(scenario_axes(f.outcome->config.scenario_name));
        for (const auto& axis_value : axes_of.back()) {
            const std::string& axis = axis_value.first;
            const std::string& value = axis_value.second;
            auto it =
                std::find_if(run_values.begin(), run_values.end(), [&](const auto& a) { return a.first == axis; });
            if (it == run_values.end()) it = run_values.insert(run_values.end(), {axis, {}});
            append_unique(it->second, value);
        }
    }
    const auto fixed_in_run = [&](const std::string& axis) {
        return std::any_of(figures.fixed_axes.begin(), figures.fixed_axes.end(),
                           [&](const auto& a) { return a.first == axis; });
    };
    for (const auto& [axis, values] : run_values)
        if (values.size() == 1) figures.fixed_axes.emplace_back(axis, values.front());

    for (const std::string& category : category_order(figures)) {
        CategoryTables& tables = figures.categories.emplace_back();
        tables.category = category;
        for (std::size_t i = 0; i < figures.scenarios.size(); ++i) {
            const bench::ScenarioConfig& config = figures.scenarios[i].outcome->config;
            if (config.category != category) continue;
            tables.totals.count(figures.scenarios[i].outcome->result.status);
            const std::string id = config.benchmark_id();
            auto table = std::find_if(tables.tables.begin(), tables.tables.end(),
                                      [&](const BenchmarkTable& t) { return t.benchmark_id == id; });
            if (table == tables.tables.end()) {
                table = tables.tables.insert(tables.tables.end(), BenchmarkTable{});
                table->benchmark_id = id;
            }
            table->rows.push_back({i, {}});
        }
        for (BenchmarkTable& table : tables.tables) {
            // Each axis of the benchmark's scenarios not fixed in the run: its values here.
            std::vector<std::pair<std::string, std::vector<std::string>>> values;
            for (const BenchmarkTable::Row& row : table.rows)
                for (const auto& axis_value : axes_of[row.scenario]) {
                    const std::string& axis = axis_value.first;
                    const std::string& value = axis_value.second;
                    if (fixed_in_run(axis)) continue;
                    auto it =
                        std::find_if(values.begin(), values.end(), [&](const auto& a) { return a.first == axis; });
                    if (it == values.end()) it = values.insert(values.end(), {axis, {}});
                    it->second.push_back(value);
                }
            for (const auto& axis_values : values) {
                const std::string& axis = axis_values.first;
                const std::vector<std::string>& seen = axis_values.second;
                const bool one_value =
                    seen.size() == table.rows.size() &&
                    std::all_of(seen.begin(), seen.end(), [&](const auto& v) { return v == seen.front(); });
                if (one_value) table.fixed_axes.emplace_back(axis, seen.front());
                else table.axes.push_back(axis);
            }
            for (BenchmarkTable::Row& row : table.rows) {
                for (const std::string& axis : table.axes) {
                    const AxisValues& axes = axes_of[row.scenario];
                    const auto it =
                        std::find_if(axes.begin(), axes.end(), [&](const auto& a) { return a.first == axis; });
                    row.values.push_back(it == axes.end() ? "-" : it->second);
                }
            }
        }
    }
}

/// A warning with its numbers replaced: what alike warnings share.
std::string warning_shape(const std::string& text) {
    std::string shape;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (std::isdigit(static_cast<unsigned char>(text[i]))) {
            while (i + 1 < text.size() && (std::isdigit(static_cast<unsigned char>(text[i + 1])) || text[i + 1] == '.'))
                ++i;
            shape += '#';
        } else {
            shape += text[i];
        }
    }
    return shape;
}

/// Adds `outcome` to the group keyed `key` (made with `text` when new).
void add_to_group(std::vector<ScenarioGroup>& groups, std::vector<std::string>& keys, const std::string& key,
                  const std::string& text, const ScenarioOutcome* outcome) {
    auto it = std::find(keys.begin(), keys.end(), key);
    if (it == keys.end()) {
        keys.push_back(key);
        groups.push_back({text, {}});
        it = keys.end() - 1;
    }
    std::vector<const ScenarioOutcome*>& members = groups[static_cast<std::size_t>(it - keys.begin())].scenarios;
    if (members.empty() || members.back() != outcome) members.push_back(outcome);
}

void make_summary(RunFigures& figures) {
    std::vector<std::string> warning_keys, skip_keys;
    for (const ScenarioFigures& f : figures.scenarios) {
        const bench::ScenarioResult& result = f.outcome->result;
        if (result.status == bench::Status::skipped) {
            add_to_group(figures.skips, skip_keys, result.reason, result.reason, f.outcome);
            continue;
        }
        if (result.status != bench::Status::success) figures.failures.push_back(&f);
        for (const std::string& warning : result.warnings)
            add_to_group(figures.warnings, warning_keys, warning_shape(warning), warning, f.outcome);
    }
    for (const CategoryTables& category : figures.categories) {
        for (const BenchmarkTable& table : category.tables) {
            BenchmarkOverview& row = figures.overview.emplace_back();
            row.benchmark_id = table.benchmark_id;
            // Per variant, the log of each speedup of the headline series.
            std::vector<std::pair<std::string, std::vector<const Speedup*>>> by_variant;
            for (const BenchmarkTable::Row& table_row : table.rows) {
                const ScenarioFigures& f = figures.scenarios[table_row.scenario];
                row.totals.count(f.outcome->result.status);
                if (row.headline == nullptr && f.success() && !f.samples.empty()) row.headline = &f;
                for (const Speedup& speedup : f.speedups) {
                    if (speedup.series != f.headline || !(speedup.value > 0)) continue;
                    auto it = std::find_if(by_variant.begin(), by_variant.end(),
                                           [&](const auto& v) { return v.first == f.variant; });
                    if (it == by_variant.end()) it = by_variant.insert(by_variant.end(), {f.variant, {}});
                    it->second.push_back(&speedup);
                }
            }
            for (const auto& [variant, speedups] : by_variant) {
                VariantSpeedup& v = row.speedups.emplace_back();
                v.variant = variant;
                v.points = static_cast<int>(speedups.size());
                if (speedups.size() == 1) {
                    v.value = speedups.front()->value;
                    v.ci = speedups.front()->ci;
                    continue;
                }
                double log_sum = 0;
                for (const Speedup* s : speedups) log_sum += std::log(s->value);
                v.value = std::exp(log_sum / static_cast<double>(speedups.size()));
            }
        }
    }
}

void make_rank_tables(RunFigures& figures) {
    for (const ScenarioFigures& f : figures.scenarios) {
        if (!f.success() || f.outcome->config.world_size < 2) continue;
        const ScenarioStatistics& statistics = f.outcome->statistics;
        RankTable table;
        table.scenario = &f;
        for (const SeriesStatistics& series : statistics.series) {
            // Not structured bindings: clang before 16 cannot capture them in a lambda.
            const std::pair<std::string, int> parsed = parse_rank_series_name(series.name);
            const std::string& base = parsed.first;
            const int rank = parsed.second;
            if (rank < 0 || series.analysis.summary.count == 0) continue;
            auto row = std::find_if(table.rows.begin(), table.rows.end(),
                                    [&](const RankTable::Row& r) { return r.series == base; });
            if (row == table.rows.end()) {
                row = table.rows.insert(table.rows.end(), RankTable::Row{});
                row->series = base;
            }
            if (row->per_rank.size() <= static_cast<std::size_t>(rank)) row->per_rank.resize(rank + 1, nullptr);
            row->per_rank[rank] = &series;
            table.ranks = std::max(table.ranks, rank + 1);
        }
        if (table.rows.empty()) continue;
        for (RankTable::Row& row : table.rows) row.per_rank.resize(table.ranks, nullptr);
        for (const Straggler& straggler : statistics.stragglers)
            for (RankTable::Row& row : table.rows)
                if (row.series == straggler.series) row.stragglers.push_back(straggler);
        figures.rank_tables.push_back(std::move(table));
    }
}

void make_bandwidth_curves(RunFigures& figures) {
    constexpr std::string_view busbw = "busbw.";
    for (const ScenarioFigures& f : figures.scenarios) {
        if (!f.success()) continue;
        const ScenarioOutcome& outcome = *f.outcome;
        BandwidthCurve curve;
        curve.scenario = &f;
        curve.collective = outcome.config.benchmark;
        curve.world_size = outcome.config.world_size;
        for (const SeriesStatistics& series : outcome.statistics.series) {
            if (!series.name.starts_with(busbw) || series.analysis.summary.count == 0) continue;
            BandwidthCurve::Point point;
            point.size = series.name.substr(busbw.size());
            if (point.size.empty() || parse_rank_series_name(series.name).second >= 0) continue;
            const bench::Scalar* bytes = outcome.result.find_scalar("bytes." + point.size);
            point.bytes = bytes != nullptr && bytes->value > 0 ? bytes->value : message_size_bytes(point.size);
            if (!(point.bytes > 0)) continue;
            point.busbw = &series;
            point.algbw = outcome.statistics.find("algbw." + point.size);
            point.latency = outcome.statistics.find("latency." + point.size);
            curve.points.push_back(point);
        }
        if (curve.points.empty()) continue;
        std::stable_sort(curve.points.begin(), curve.points.end(),
                         [](const auto& a, const auto& b) { return a.bytes < b.bytes; });
        figures.bandwidth.push_back(std::move(curve));
    }
}

void make_scaling(RunFigures& figures) {
    for (ScenarioFigures& f : figures.scenarios) {
        const bench::ScenarioConfig& config = f.outcome->config;
        if (!f.success() || config.world_size < 1 || !std::isfinite(f.throughput)) continue;
        const std::string group =
            config.category + "/" + config.plugin + "/" + scenario_name_without(config.scenario_name, {"world_size"});
        auto it = std::find_if(figures.scaling.begin(), figures.scaling.end(),
                               [&](const ScalingGroup& g) { return g.group == group; });
        if (it == figures.scaling.end()) {
            it = figures.scaling.insert(figures.scaling.end(), ScalingGroup{});
            it->group = group;
            it->unit = f.throughput_unit;
        }
        if (f.throughput_unit != it->unit) continue;
        const bool seen = std::any_of(it->points.begin(), it->points.end(),
                                      [&](const ScalingGroup::Point& p) { return p.world_size == config.world_size; });
        if (!seen) it->points.push_back({&f, config.world_size, f.throughput, f.throughput_ci});
    }
    std::erase_if(figures.scaling, [](const ScalingGroup& g) { return g.points.size() < 2; });
    for (ScalingGroup& group : figures.scaling) {
        std::sort(group.points.begin(), group.points.end(),
                  [](const auto& a, const auto& b) { return a.world_size < b.world_size; });
        if (group.points.front().world_size == 1) group.base = group.points.front().throughput;
        for (ScalingGroup::Point& point : group.points) {
            // The efficiency the statistics computed (complete_speedups), over the same
            // scenario at world size 1.
            const std::optional<ScalingEfficiency>& scaling = point.scenario->outcome->statistics.scaling;
            if (!std::isfinite(group.base) || !scaling) continue;
            point.efficiency = scaling->value;
            point.efficiency_ci = scaling->ci;
            if (std::isfinite(point.efficiency)) {
                point.ideal = point.world_size * group.base;
                // The scenario's own row shows it: it is a figure of the scenario in this run.
                ScenarioFigures& row =
                    figures.scenarios[static_cast<std::size_t>(point.scenario - figures.scenarios.data())];
                row.scaling_efficiency = point.efficiency;
                row.scaling_efficiency_ci = point.efficiency_ci;
            }
        }
    }
}

}  // namespace

std::string scaling_efficiency_text(double efficiency, const bench::Interval& ci) {
    if (!std::isfinite(efficiency)) return "-";
    char text[80];
    if (ci.valid()) std::snprintf(text, sizeof text, "%.2f [%.2f, %.2f]", efficiency, ci.low, ci.high);
    else std::snprintf(text, sizeof text, "%.2f", efficiency);
    return text;
}

std::string median_text(const SeriesStatistics* series) {
    if (series == nullptr || series->analysis.summary.count == 0) return "-";
    return figure_with_interval(series->analysis.summary.median, series->analysis.median_ci, series->unit);
}

std::string stragglers_text(const RankTable::Row& row) {
    std::string text;
    for (const Straggler& s : row.stragglers) {
        text += (text.empty() ? "" : "; ") +
                ("rank " + std::to_string(s.rank) + ": " + format_ratio(s.ratio) + " the other ranks' median");
        if (s.interval.valid()) text += " [" + format3(s.interval.low) + ", " + format3(s.interval.high) + "]";
    }
    return text;
}

std::vector<BandwidthTable> bandwidth_tables(const RunFigures& figures) {
    std::vector<BandwidthTable> tables;
    for (const BandwidthCurve& curve : figures.bandwidth) {
        auto table = std::find_if(tables.begin(), tables.end(),
                                  [&](const BandwidthTable& t) { return t.world_size == curve.world_size; });
        if (table == tables.end()) {
            table = tables.insert(tables.end(), BandwidthTable{});
            table->world_size = curve.world_size;
            table->title = curve.world_size > 0 ? "world size " + std::to_string(curve.world_size) : "one process";
        }
        table->curves.push_back(&curve);
    }
    for (BandwidthTable& table : tables) {
        std::vector<std::pair<double, std::string>> sizes;  // bytes, label
        for (const BandwidthCurve* curve : table.curves)
            for (const BandwidthCurve::Point& p : curve->points)
                if (std::none_of(sizes.begin(), sizes.end(), [&](const auto& s) { return s.second == p.size; }))
                    sizes.emplace_back(p.bytes, p.size);
        std::stable_sort(sizes.begin(), sizes.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        for (const auto& size : sizes) {
            std::vector<std::string> cells;
            for (const BandwidthCurve* curve : table.curves) {
                const auto p = std::find_if(curve->points.begin(), curve->points.end(),
                                            [&](const BandwidthCurve::Point& q) { return q.size == size.second; });
                cells.push_back(
                    p == curve->points.end() ? "-" : format_figure(p->busbw->analysis.summary.median, p->busbw->unit));
            }
            table.rows.emplace_back(size.second, std::move(cells));
        }
    }
    return tables;
}

double message_size_bytes(std::string_view label) {
    std::size_t digits = 0;
    double value = 0;
    while (digits < label.size() && digits < 15 && label[digits] >= '0' && label[digits] <= '9')
        value = value * 10 + (label[digits++] - '0');
    if (digits == 0) return NAN;
    const std::string_view unit = label.substr(digits);
    if (unit == "B") return value;
    if (unit == "KiB") return value * 1024;
    if (unit == "MiB") return value * 1024 * 1024;
    if (unit == "GiB") return value * 1024 * 1024 * 1024;
    return NAN;
}

std::pair<std::string, double> time_display_unit(double max_ms) {
    if (!std::isfinite(max_ms)) return {"ms", 1.0};
    if (max_ms >= 1000) return {"s", 1e-3};
    if (max_ms >= 1 || max_ms == 0) return {"ms", 1.0};
    if (max_ms >= 1e-3) return {"us", 1e3};
    return {"ns", 1e6};
}

std::vector<std::pair<std::string, std::string>> scenario_axes(std::string_view name) {
    std::vector<std::pair<std::string, std::string>> axes;
    const auto open = name.find('[');
    if (open == std::string_view::npos || name.back() != ']') return axes;
    std::string_view inside = name.substr(open + 1, name.size() - open - 2);
    while (!inside.empty()) {
        const auto comma = inside.find(',');
        const std::string_view entry = inside.substr(0, comma);
        const auto equals = entry.find('=');
        if (equals == std::string_view::npos) {
            axes.emplace_back(std::string(entry), std::string());
        } else {
            axes.emplace_back(std::string(entry.substr(0, equals)), std::string(entry.substr(equals + 1)));
        }
        if (comma == std::string_view::npos) break;
        inside.remove_prefix(comma + 1);
    }
    return axes;
}

std::string scenario_name_without(std::string_view name, const std::vector<std::string>& drop) {
    const auto open = name.find('[');
    if (open == std::string_view::npos || name.back() != ']') return std::string(name);
    std::string kept;
    for (const auto& [key, value] : scenario_axes(name)) {
        if (std::find(drop.begin(), drop.end(), key) != drop.end()) continue;
        if (!kept.empty()) kept += ',';
        kept += value.empty() ? key : key + "=" + value;
    }
    std::string out(name.substr(0, open));
    if (!kept.empty()) out += "[" + kept + "]";
    return out;
}

RunFigures compute_figures(const RunRecord& record) {
    if (!statistics_computed(record))
        throw std::logic_error("report figures: the run's statistics were not computed (analyze_run)");
    RunFigures figures;
    figures.record = &record;
    figures.totals = count_totals(record);
    figures.machine = machine_summary(record.hardware);
    figures.scenarios.reserve(record.outcomes.size());
    for (const ScenarioOutcome& outcome : record.outcomes) {
        ScenarioFigures f;
        f.outcome = &outcome;
        const bench::ScenarioConfig& config = outcome.config;
        const bench::ScenarioResult& result = outcome.result;

        f.variant = std::string(bench::to_string(config.variant));
        // The compile mode is the compiled variant's; "default" goes unsaid.
        if (config.variant == bench::Variant::compiled && !config.compile_mode.empty() &&
            config.compile_mode != "default")
            f.variant += "/" + config.compile_mode;
        f.batch_size = config.batch_size;
        const std::string prefix = config.category + "/" + config.plugin + "/";
        f.batch_group = prefix + scenario_name_without(config.scenario_name, {"variant", "compile_mode", "batch_size"});
        f.variant_group = prefix + scenario_name_without(config.scenario_name, {"variant", "compile_mode"});

        // Figures of a scenario that ran to the end only: the samples of one that failed
        // halfway are not its result (the plugin JSON keeps them).
        const bool ended = result.status == bench::Status::success;
        if (const SeriesStatistics* statistics = ended ? headline_series(outcome) : nullptr) {
            const bench::Series* series = result.find_series(statistics->name);
            f.headline = series->name;
            f.unit = series->unit;
            f.samples = finite_samples(series->samples);
            f.analysis = statistics->analysis;
            const double factor = to_ms_factor(series->unit);
            f.is_time = std::isfinite(factor);
            if (f.is_time)
                for (const double v : f.samples) f.samples_ms.push_back(v * factor);
        }
        for (const char* name : throughput_series) {
            const SeriesStatistics* series = ended ? outcome.statistics.find(name) : nullptr;
            if (series == nullptr || series->analysis.summary.count == 0) continue;
            f.throughput_series = name;
            f.throughput = series->analysis.summary.median;
            f.throughput_ci = series->analysis.median_ci;
            f.throughput_unit = series->unit;
            break;
        }
        // A serving load records its throughput as one figure (the samples over the time of
        // the last completion: offline's headline), not as a series.
        if (const bench::Scalar* scalar = result.find_scalar("throughput");
            ended && f.throughput_series.empty() && scalar != nullptr && std::isfinite(scalar->value)) {
            f.throughput_series = scalar->name;
            f.throughput = scalar->value;
            f.throughput_unit = scalar->unit;
        }
        if (ended) {
            for (const SeriesStatistics& series : outcome.statistics.series) {
                if (series.analysis.summary.count == 0 || series.name == f.headline ||
                    series.name == f.throughput_series)
                    continue;
                f.other_series.push_back(&series);
            }
        }
        f.speedups = outcome.statistics.speedups;
        figures.scenarios.push_back(std::move(f));
    }
    figures.settings = settings_lines(record);
    if (const auto it = record.run_config.find("command_line"); it != record.run_config.end())
        figures.command_line = it->second;
    if (const auto it = record.run_config.find("working_directory"); it != record.run_config.end())
        figures.working_directory = it->second;
    make_tables(figures);
    make_summary(figures);
    make_rank_tables(figures);
    make_bandwidth_curves(figures);
    make_scaling(figures);
    return figures;
}

std::vector<std::string> category_order(const RunFigures& figures) {
    std::vector<std::string> order = {"unit", "integration", "performance"};
    for (const ScenarioFigures& f : figures.scenarios) append_unique(order, f.outcome->config.category);
    return order;
}

std::string figure_with_interval(double value, const bench::Interval& interval, std::string_view unit) {
    if (!std::isfinite(value)) return "-";
    // The bounds in the scale chosen for the value.
    const DisplayScale scale = display_scale(value, unit);
    std::string text = format_figure(value, unit);
    if (interval.valid())
        text += " [" + format3(interval.low * scale.factor) + ", " + format3(interval.high * scale.factor) + "]";
    return text;
}

std::string axes_text(const AxisValues& axes) {
    std::string out;
    for (const auto& [axis, value] : axes)
        out += (out.empty() ? "" : ", ") + (value.empty() ? axis : axis + "=" + value);
    return out;
}

std::string success_rate_text(const RunTotals& totals) {
    if (totals.ran() == 0) return "-";
    return format_share(totals.success_rate());
}

std::string totals_text(const RunTotals& t) {
    std::string out = std::to_string(t.total) + (t.total == 1 ? " scenario: " : " scenarios: ") +
                      std::to_string(t.successful) + " succeeded, " + std::to_string(t.failed) + " failed";
    if (t.ran() > 0) out += " (" + success_rate_text(t) + " of those that ran)";
    return out + ", " + std::to_string(t.skipped) + " skipped";
}

std::string sampling_text(const bench::ScenarioConfig& config) {
    std::ostringstream text;
    text << config.warmup_iterations << " warmup, ";
    const bool time_rule = config.min_time_s > 0 || config.max_time_s > 0 || config.target_ci_width > 0;
    if (!time_rule) {
        text << config.measurement_iterations << " samples";
        return text.str();
    }
    text << "at least " << config.measurement_iterations << " samples";
    if (config.min_time_s > 0) text << ", at least " << config.min_time_s << " s";
    if (config.target_ci_width > 0) text << ", until the CI is " << config.target_ci_width * 100 << "% wide";
    const double max_time = config.max_time_s > 0        ? config.max_time_s
                            : config.target_ci_width > 0 ? bench::default_max_time_s
                                                         : 0;
    if (max_time > 0) text << ", at most " << max_time << " s";
    return text.str();
}

std::string median_with_ci(const ScenarioFigures& f) {
    if (f.samples.empty()) return "-";
    return figure_with_interval(f.analysis.summary.median, f.analysis.median_ci, f.unit);
}

std::string p95_text(const ScenarioFigures& f) {
    if (f.samples.empty()) return "-";
    return format_figure(f.analysis.summary.p95, f.unit);
}

std::string cv_text(const ScenarioFigures& f) {
    if (f.samples.size() < 2) return "-";
    return format_share(f.analysis.cv);
}

std::string throughput_text(const ScenarioFigures& f) { return format_figure(f.throughput, f.throughput_unit); }

std::string series_median_text(const SeriesStatistics& series) {
    return series.name + " " + format_figure(series.analysis.summary.median, series.unit);
}

std::string other_series_text(const ScenarioFigures& f, std::size_t shown, std::size_t width) {
    const std::size_t count = f.other_series.size();
    const auto more = [&](std::size_t listed) {
        return listed < count ? ", +" + std::to_string(count - listed) + " more series" : std::string();
    };
    std::string text;
    std::size_t listed = 0;
    for (; listed < count && listed < shown; ++listed) {
        std::string next = text + (listed > 0 ? ", " : "") + series_median_text(*f.other_series[listed]);
        if (listed > 0 && width != SIZE_MAX && display_width(next + more(listed + 1)) > width) break;
        text = std::move(next);
    }
    text += more(listed);
    return width != SIZE_MAX && display_width(text) > width ? one_line(text, width) : text;
}

std::string speedup_text(const Speedup& speedup) {
    std::string text = format_ratio(speedup.value);
    if (speedup.ci.valid()) text += " [" + format3(speedup.ci.low) + ", " + format3(speedup.ci.high) + "]";
    if (speedup.series != "latency") text += " (" + speedup.series + ")";
    return text;
}

namespace {

std::string upper_case(std::string text) {
    for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return text;
}

}  // namespace

namespace {
/// The axes of `outcome`'s name whose value varies in the run.
AxisValues varying_axes(const RunFigures& figures, const ScenarioOutcome& outcome) {
    AxisValues varying;
    for (auto& axis_value : scenario_axes(outcome.config.scenario_name)) {
        const bool fixed = std::any_of(figures.fixed_axes.begin(), figures.fixed_axes.end(),
                                       [&](const auto& f) { return f.first == axis_value.first; });
        if (!fixed) varying.push_back(std::move(axis_value));
    }
    return varying;
}
}  // namespace

std::string scenario_label(const RunFigures& figures, const ScenarioOutcome& outcome) {
    const bench::ScenarioConfig& config = outcome.config;
    std::string label = config.benchmark == config.plugin ? config.plugin : config.plugin + "/" + config.benchmark;
    const AxisValues axes = varying_axes(figures, outcome);
    return axes.empty() ? label : label + " [" + axes_text(axes) + "]";
}

std::string varying_axes_text(const RunFigures& figures, const ScenarioOutcome& outcome) {
    std::string text;
    for (const auto& [axis, value] : varying_axes(figures, outcome)) text += (text.empty() ? "" : ", ") + value;
    return text;
}

std::string variant_speedup_text(const VariantSpeedup& s) {
    std::string text = s.variant + " " + format_ratio(s.value);
    if (s.points == 1 && s.ci.valid()) text += " [" + format3(s.ci.low) + ", " + format3(s.ci.high) + "]";
    if (s.points > 1) text += " (geometric mean of " + std::to_string(s.points) + ")";
    return text;
}

std::string overview_counts_text(const RunTotals& t) {
    std::string text = std::to_string(t.successful) + " of " + std::to_string(t.total);
    if (t.failed > 0) text += ", " + std::to_string(t.failed) + " failed";
    if (t.skipped > 0) text += ", " + std::to_string(t.skipped) + " skipped";
    return text;
}

std::string rate_text(double qps) { return std::isfinite(qps) ? format_figure(qps, "") + "/s" : "-"; }

std::vector<PeakTable> peak_tables(const RunFigures& figures) {
    std::vector<PeakTable> tables;
    for (const ScenarioFigures& f : figures.scenarios) {
        if (!f.outcome->result.peak_search) continue;
        const bench::PeakSearch& search = *f.outcome->result.peak_search;
        PeakTable table;
        table.outcome = f.outcome;
        std::ostringstream percentile;
        percentile << 'p' << search.percentile;
        for (const bench::Slo& slo : f.outcome->config.load.slos)
            table.bounds += (table.bounds.empty() ? "" : ", ") + percentile.str() + " of " + slo.metric +
                            " <= " + format_figure(slo.limit_ms, "ms");
        table.columns = {"#", "RATE", "ACHIEVED"};
        const std::vector<bench::PeakMetric>& first =
            search.steps.empty() ? std::vector<bench::PeakMetric>{} : search.steps.front().metrics;
        for (const bench::PeakMetric& metric : first) {
            table.columns.push_back(upper_case(metric.metric) + " P50");
            table.columns.push_back(upper_case(metric.metric + " " + percentile.str()));
        }
        table.columns.insert(table.columns.end(), {"GOODPUT", "LATE", "QUERIES", "RESULT"});
        double lowest_failed = NAN;
        for (std::size_t i = 0; i < search.steps.size(); ++i) {
            const bench::PeakStep& step = search.steps[i];
            std::vector<std::string> row = {std::to_string(i + 1), rate_text(step.target_qps),
                                            rate_text(step.achieved_qps)};
            for (std::size_t m = 0; m < first.size(); ++m) {
                const bool has = m < step.metrics.size();
                row.push_back(has ? format_figure(step.metrics[m].p50_ms, "ms") : "-");
                row.push_back(has ? format_figure(step.metrics[m].percentile_ms, "ms") : "-");
            }
            row.push_back(std::isfinite(step.goodput) ? format3(step.goodput) + "%" : "-");
            row.push_back(std::to_string(step.late_issues));
            row.push_back(step.queries == step.planned
                              ? std::to_string(step.queries)
                              : std::to_string(step.queries) + "/" + std::to_string(step.planned));
            row.push_back(std::string(step.passed ? "pass" : "fail") +
                          (step.target_qps == search.peak_qps ? ", peak" : ""));
            table.rows.push_back(std::move(row));
            if (!step.passed && step.target_qps > search.peak_qps && !(step.target_qps >= lowest_failed))
                lowest_failed = step.target_qps;
        }
        std::ostringstream precision;
        precision << search.precision * 100 << '%';
        if (search.end == bench::peak_end_no_pass) {
            table.peak = "no peak: no rate passed, down to " +
                         rate_text(search.steps.empty() ? NAN : search.steps.back().target_qps);
        } else if (search.end == bench::peak_end_no_fail) {
            table.peak = "peak at least " + rate_text(search.peak_qps) + ": every rate passed, up to that";
        } else {
            table.peak = "peak " + rate_text(search.peak_qps) +
                         ": the highest rate that passed; the lowest that failed, " + rate_text(lowest_failed) +
                         (search.end == bench::peak_end_precision
                              ? ", is within " + precision.str()
                              : ", is not within " + precision.str() + " (the search ran out of rates to try)");
        }
        tables.push_back(std::move(table));
    }
    return tables;
}

}  // namespace benchhost
