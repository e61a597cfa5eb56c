#include "report/report_writer.hpp"

#include <optional>
#include <stdexcept>

#include "analysis/scenario_statistics.hpp"
#include "report/reporter_registry.hpp"

namespace benchhost {

WrittenReports write_reports(const RunRecord& given, const std::filesystem::path& output_dir) {
    std::optional<RunRecord> storage;
    const RunRecord& record = with_statistics(given, storage);
    ReporterSettings settings;
    settings.output_dir = output_dir;
    ReporterMultiplex reporters = make_reporters({"plugin-json", "csv", "summary"}, settings);
    reporters.run_finished(record);
    if (!reporters.errors().empty()) throw std::runtime_error(reporters.errors().front());

    WrittenReports written;
    for (const ScenarioOutcome& outcome : record.outcomes)
        written.plugin_reports.try_emplace(outcome.config.plugin,
                                           output_dir / plugin_report_path(outcome.config.plugin, record.timestamp));
    written.csv = output_dir / ("benchmark_results_" + record.timestamp + ".csv");
    written.summary = output_dir / summary_file_name;
    return written;
}

}  // namespace benchhost
