#include "report/rendered_reports.hpp"

#include <optional>

#include "analysis/scenario_statistics.hpp"
#include "report/report_figures.hpp"
#include "util/atomic_file.hpp"

namespace benchhost {

void write_rendered_reports(const RunRecord& given, const std::filesystem::path& dir) {
    std::optional<RunRecord> storage;
    const RunFigures figures = compute_figures(with_statistics(given, storage));  // once, for both
    write_file_atomically(dir / markdown_report_name, markdown_report(figures));
    write_file_atomically(dir / html_report_name, html_report(figures));
}

}  // namespace benchhost
