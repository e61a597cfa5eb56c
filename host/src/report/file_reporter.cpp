// A reporter of one file (file_reporter.hpp).
#include "report/file_reporter.hpp"

#include <iostream>
#include <stdexcept>
#include <utility>

#include "util/atomic_file.hpp"

namespace benchhost {

namespace {

class FileReporter final : public RunReporter {
public:
    FileReporter(const ReporterSettings& settings, FileReport report)
        : settings_(settings), report_(std::move(report)) {}

    void checkpoint(const RunRecord& record) override {
        if (!report_.at_checkpoints) return;
        const std::filesystem::path path = path_of(record);
        if (path != "-") write(path, report_.render(record, RunEnd{}));
    }

    void run_ended(const RunRecord& record, const RunEnd& end) override {
        const std::string text = report_.render(record, end);
        const std::filesystem::path path = path_of(record);
        if (path == "-") {
            std::cout << text << std::flush;
            if (!std::cout) throw std::runtime_error("cannot write " + name_of(record) + " to standard output");
        } else {
            write(path, text);
        }
        if (report_.then) report_.then(text);
    }

    std::vector<std::filesystem::path> files() const override {
        if (written_.empty()) return {};
        return {written_};
    }

private:
    std::string name_of(const RunRecord& record) const {
        return report_.name_of ? report_.name_of(record) : report_.name;
    }
    std::filesystem::path path_of(const RunRecord& record) const {
        if (!settings_.output_file.empty()) return settings_.output_file;
        return settings_.output_dir / name_of(record);
    }
    void write(const std::filesystem::path& path, const std::string& text) {
        write_file_atomically(path, text);
        written_ = path;
    }

    ReporterSettings settings_;
    FileReport report_;
    std::filesystem::path written_;
};

}  // namespace

std::unique_ptr<RunReporter> make_file_reporter(const ReporterSettings& settings, FileReport report) {
    return std::make_unique<FileReporter>(settings, std::move(report));
}

}  // namespace benchhost
