#include "report/comparison_reporter.hpp"

#include <iostream>
#include <stdexcept>

#include "json/report_reader.hpp"
#include "report/reporter_factories.hpp"
#include "util/atomic_file.hpp"

namespace benchhost {

namespace fs = std::filesystem;

void report_comparison(const Comparison& comparison, std::ostream& out, const fs::path& markdown, const fs::path& json) {
    out << comparison_table(comparison) << std::flush;
    if (!markdown.empty()) write_file_atomically(markdown, comparison_markdown(comparison));
    if (!json.empty()) write_file_atomically(json, comparison_json(comparison));
}

namespace {

class ComparisonReporter final : public Reporter {
public:
    explicit ComparisonReporter(const ReporterSettings& settings)
        : settings_(settings), out_(settings.console != nullptr ? settings.console : &std::cout) {}

    void run_finished(const RunRecord& record) override {
        if (settings_.baseline.empty()) return;
        status_ = 1;  // until the comparison is written
        const fs::path base_dir = run_folder_of(settings_.baseline);
        RunRecord base;
        try {
            base = read_run(base_dir);
        } catch (const std::exception& e) {
            throw std::runtime_error("cannot compare with the baseline " + settings_.baseline.string() + ": " +
                                     e.what());
        }
        Comparison comparison = compare_runs(base, record, CompareOptions{settings_.regression_threshold, 0.05});
        comparison.base_label = base_dir.string();
        comparison.new_label = settings_.output_dir.string();
        *out_ << "\n";
        report_comparison(comparison, *out_, markdown_path(), json_path());
        regressions_ = comparison.regressions();
        slower_ = comparison.count(Verdict::slower);
        faster_ = comparison.count(Verdict::faster);
        status_ = settings_.fail_on_regression && regressions_ > 0 ? 1 : 0;
        if (settings_.log != nullptr) {
            settings_.log->info("comparison with {}: {} slower, {} faster", base_dir.string(), slower_, faster_);
            if (status_ != 0)
                settings_.log->error("{} regression{} beyond the threshold of {:.3g}%", regressions_,
                                     regressions_ == 1 ? "" : "s", settings_.regression_threshold * 100);
        }
    }
    int exit_status() const override { return status_; }
    std::vector<fs::path> files() const override { return {markdown_path(), json_path()}; }

private:
    fs::path markdown_path() const { return settings_.output_dir / "comparison.md"; }
    fs::path json_path() const { return settings_.output_dir / "comparison.json"; }

    ReporterSettings settings_;
    std::ostream* out_;
    int status_ = 0;
    std::size_t regressions_ = 0, slower_ = 0, faster_ = 0;
};

}  // namespace

std::unique_ptr<Reporter> make_comparison_reporter(const ReporterSettings& settings) {
    return std::make_unique<ComparisonReporter>(settings);
}

}  // namespace benchhost
