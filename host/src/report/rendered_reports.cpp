#include "report/rendered_reports.hpp"

#include "util/atomic_file.hpp"
#include "report/report_figures.hpp"

namespace benchhost {

void write_rendered_reports(const RunRecord& record, const std::filesystem::path& dir) {
    const RunFigures figures = compute_figures(record);  // the bootstraps once, for both
    write_file_atomically(dir / markdown_report_name, markdown_report(figures));
    write_file_atomically(dir / html_report_name, html_report(figures));
}

}  // namespace benchhost
