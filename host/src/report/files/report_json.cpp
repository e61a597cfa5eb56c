#include "report/files/report_json.hpp"

namespace benchhost {

std::filesystem::path csv_report_path(const std::string& timestamp) {
    return "benchmark_results_" + timestamp + ".csv";
}

std::filesystem::path plugin_report_path(const std::string& plugin, const std::string& timestamp) {
    return std::filesystem::path(plugin) / (plugin + "_" + timestamp + ".json");
}

void write_hardware(JsonOut& out, const HardwareInfo& hardware, const std::vector<std::string>& warnings) {
    out.start_object();
    for (const auto& [section, facts] : hardware) {
        if (section == "warnings") continue;  // the key of the list below
        out.field(section, facts);
    }
    out.field("warnings", warnings);
    out.end_object();
}

void write_speedups(JsonOut& out, const std::vector<Speedup>& speedups) {
    if (speedups.empty()) return;
    out.key("speedup_over_eager");
    out.start_object();
    for (const Speedup& speedup : speedups) {
        out.key(speedup.series);
        out.start_object();
        out.field("value", speedup.value);
        out.field("ci95", speedup.ci);
        out.field("baseline_scenario_id", speedup.baseline_scenario_id);
        out.end_object();
    }
    out.end_object();
}

void write_scaling(JsonOut& out, const std::optional<ScalingEfficiency>& scaling) {
    if (!scaling) return;
    out.key("scaling_efficiency");
    out.start_object();
    out.field("series", scaling->series);
    out.field("world_size", scaling->world_size);
    out.field("value", scaling->value);
    out.field("ci95", scaling->ci);
    out.field("baseline_scenario_id", scaling->baseline_scenario_id);
    out.end_object();
}

}  // namespace benchhost
