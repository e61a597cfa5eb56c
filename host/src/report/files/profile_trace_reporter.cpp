#include "report/files/profile_trace_reporter.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "json/json_writer.hpp"
#include "report/reporter_factories.hpp"
#include "util/atomic_file.hpp"

namespace benchhost {

std::string profile_trace_file(const ScenarioOutcome& outcome, const std::string& timestamp) {
    if (!outcome.result.profile) return {};
    const bench::Profile& profile = *outcome.result.profile;
    if (!profile.trace_file.empty()) return profile.trace_file;
    if (profile.trace.empty()) return {};
    std::string name = outcome.config.scenario_name;
    for (char& c : name)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' ||
              c == '_'))
            c = '_';
    while (!name.empty() && name.back() == '_') name.pop_back();  // "resnet50[...]": no "_" before the time
    return (std::filesystem::path("traces") / outcome.config.plugin / (name + "_" + timestamp + ".json")).string();
}

namespace {

/// A track's name: the profiled calls (0), a thread, or a device's stream (below 0:
/// bench::TraceEvent::thread).
std::string track_name(long long thread) {
    if (thread == 0) return "profiled calls";
    if (thread > 0) return "thread " + std::to_string(thread);
    const long long track = -(thread + 1);
    return "CUDA device " + std::to_string(track / 1'000'000) + ", stream " + std::to_string(track % 1'000'000);
}

}  // namespace

std::string chrome_trace(const ScenarioOutcome& outcome) {
    const bench::Profile empty;
    const bench::Profile& profile = outcome.result.profile ? *outcome.result.profile : empty;
    double origin = INFINITY;
    for (const bench::TraceEvent& event : profile.trace) origin = std::min(origin, event.start_us);
    if (!std::isfinite(origin)) origin = 0;

    JsonOut out(JsonFormat{JsonFormat::Layout::compact, JsonFormat::Values::strict});
    out.start_object();
    out.key("traceEvents");
    out.start_array();
    // Names of the process and of its threads, for the viewer.
    out.start_object();
    out.field("name", "process_name");
    out.field("ph", "M");
    out.field("pid", 1);
    out.key("args");
    out.start_object();
    out.field("name", outcome.config.scenario_id());
    out.end_object();
    out.end_object();
    std::set<long long> threads;
    for (const bench::TraceEvent& event : profile.trace) threads.insert(event.thread);
    for (const long long thread : threads) {
        out.start_object();
        out.field("name", "thread_name");
        out.field("ph", "M");
        out.field("pid", 1);
        out.field("tid", thread);
        out.key("args");
        out.start_object();
        out.field("name", track_name(thread));
        out.end_object();
        out.end_object();
    }
    for (const bench::TraceEvent& event : profile.trace) {
        out.start_object();
        out.field("name", event.name);
        out.field("cat", event.category);
        out.field("ph", "X");
        out.field("ts", event.start_us - origin);
        out.field("dur", event.duration_us);
        out.field("pid", 1);
        out.field("tid", event.thread);
        if (!event.input_shapes.empty()) {
            out.key("args");
            out.start_object();
            out.field("input_shapes", event.input_shapes);
            out.end_object();
        }
        out.end_object();
    }
    out.end_array();
    out.field("displayTimeUnit", "ms");
    out.key("otherData");
    out.start_object();
    out.field("scenario_id", outcome.config.scenario_id());
    out.field("call", profile.call);
    out.field("operator_profiler", profile.operator_profiler);
    out.end_object();
    out.end_object();
    return out.text();
}

namespace {

/// Writes each profiled scenario's trace when it ends (and, at the end of a resumed run,
/// those of the scenarios the journal brought back).
class ProfileTraceReporter final : public RunReporter {
public:
    explicit ProfileTraceReporter(std::filesystem::path dir) : dir_(std::move(dir)) {}

    void scenario_finished(const RunRecord& record, const ScenarioOutcome& outcome) override { write(record, outcome); }
    void run_ended(const RunRecord& record, const RunEnd&) override {
        for (const ScenarioOutcome& outcome : record.outcomes) write(record, outcome);
    }
    std::vector<std::filesystem::path> files() const override { return {written_.begin(), written_.end()}; }

private:
    void write(const RunRecord& record, const ScenarioOutcome& outcome) {
        if (!outcome.result.profile || outcome.result.profile->trace.empty()) return;
        const std::filesystem::path path = dir_ / profile_trace_file(outcome, record.timestamp);
        if (written_.count(path) != 0) return;
        write_file_atomically(path, chrome_trace(outcome));
        written_.insert(path);
    }

    std::filesystem::path dir_;
    std::set<std::filesystem::path> written_;
};

}  // namespace

std::unique_ptr<RunReporter> make_profile_trace_reporter(const ReporterSettings& settings) {
    return std::make_unique<ProfileTraceReporter>(settings.output_dir);
}

}  // namespace benchhost
