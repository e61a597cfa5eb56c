#include "report/report_writer.hpp"

#include <stdexcept>

#include "report/reporter_registry.hpp"

namespace benchhost {

WrittenReports write_reports(const RunRecord& record, const std::filesystem::path& output_dir) {
    ReporterSettings settings;
    settings.output_dir = output_dir;
    const std::vector<std::string> errors = report_whole_run(record, {"plugin-json", "csv", "summary"}, settings);
    if (!errors.empty()) throw std::runtime_error(errors.front());

    WrittenReports written;
    for (const ScenarioOutcome& outcome : record.outcomes)
        written.plugin_reports.try_emplace(outcome.config.plugin,
                                           output_dir / plugin_report_path(outcome.config.plugin, record.timestamp));
    written.csv = output_dir / csv_report_path(record.timestamp);
    written.summary = output_dir / summary_file_name;
    return written;
}

}  // namespace benchhost
