// The JSON block of a scenario's profile (--profile, <bench/profile.hpp>), in the
// worker protocol and the run journal (with its trace events) and in the plugin
// reports (with the file the trace was written to instead). One writer, one reader:
//
//   profile  {"call", "operator_profiler", "calls", "call_ms", "unprofiled_call_ms",
//             "overhead" (null when not measured),
//             "operators": [{"name", "calls", "self_ms", "total_ms", "flops", "input_shapes"}],
//             "modules": [{"name", "depth", "calls", "total_ms", "share", "parameters",
//                          "allocated_bytes", "peak_bytes"}] (null: not known),
//             "flame_graphs": [{"name", "source", "unit", "frames": [name, ...],
//                               "stacks": [{"value", "frames": [index into frames, root first]}]}],
//             "sampler", "samples", "notes": [text],
//             "trace": [{"name", "category", "start_us", "duration_us", "thread", "input_shapes"}]
//                 (the protocol), or "trace_file" (a report; absent when none was written)}
#pragma once

#include <string>

#include <bench/profile.hpp>

#include "json/field_reader.hpp"
#include "json/json_writer.hpp"

namespace benchhost {

/// The protocol's form: with the trace events.
void write_profile(JsonOut& out, const bench::Profile& profile);
/// A report's form: `trace_file` (left out when empty) instead of the events.
void write_profile(JsonOut& out, const bench::Profile& profile, const std::string& trace_file);
/// Reads either form; a report's "trace_file" goes to Profile::trace_file.
bench::Profile read_profile(const FieldReader& object);

}  // namespace benchhost
