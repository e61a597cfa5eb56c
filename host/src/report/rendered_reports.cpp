#include "report/rendered_reports.hpp"

#include <stdexcept>

#include "report/reporter_registry.hpp"

namespace benchhost {

void write_rendered_reports(const RunRecord& record, const std::filesystem::path& dir) {
    ReporterSettings settings;
    settings.output_dir = dir;
    const std::vector<std::string> errors = report_whole_run(record, {"markdown", "html"}, settings);
    if (!errors.empty()) throw std::runtime_error(errors.front());
}

}  // namespace benchhost
