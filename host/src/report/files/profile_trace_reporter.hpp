// The trace of a profiled scenario (--profile): traces/<plugin>/<scenario>_<timestamp>.json
// in the run folder (a folder of its own: the plugin folders hold the plugin reports), in the Chrome trace event format
// (JSON: {"traceEvents": [...]}), which Perfetto (ui.perfetto.dev) and chrome://tracing open. Each profiled call,
// module and operator is a complete event ("ph": "X") with its start and duration in microseconds from the first event,
// on its thread; an operator's input shapes are its args. Written by the profile-trace reporter when the scenario ends;
// this file is the format's one writer (nothing reads it back).
#pragma once

#include <filesystem>
#include <string>

#include "model/run_record.hpp"

namespace benchhost {

/// Where the scenario's trace is, relative to the run folder: a profile read back from a
/// report names its file; one with trace events gets
/// traces/<plugin>/<scenario name, letters, digits, '.', '-' and '_' kept>_<timestamp>.json;
/// empty when it has no profile or no trace.
std::string profile_trace_file(const ScenarioOutcome& outcome, const std::string& timestamp);

/// The trace of `outcome`'s profile as Chrome trace event JSON.
std::string chrome_trace(const ScenarioOutcome& outcome);

}  // namespace benchhost
