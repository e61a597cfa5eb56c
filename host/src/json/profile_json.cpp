#include "json/profile_json.hpp"

#include <map>
#include <string>
#include <vector>

namespace benchhost {

namespace {

/// Splits "a;b;c" into its frames.
std::vector<std::string> split_frames(const std::string& stack) {
    std::vector<std::string> frames;
    std::size_t start = 0;
    while (true) {
        const auto end = stack.find(';', start);
        frames.push_back(stack.substr(start, end == std::string::npos ? std::string::npos : end - start));
        if (end == std::string::npos) break;
        start = end + 1;
    }
    return frames;
}

void write_flame_graph(JsonOut& out, const bench::FlameGraph& graph) {
    // Frame names are written once, stacks as indices into them: a native stack repeats
    // the same long C++ names hundreds of times.
    std::map<std::string, long long> index;
    std::vector<std::string> names;
    std::vector<std::vector<long long>> stacks;
    for (const bench::FlameStack& stack : graph.stacks) {
        std::vector<long long> ids;
        for (const std::string& frame : split_frames(stack.frames)) {
            const auto [it, added] = index.try_emplace(frame, static_cast<long long>(names.size()));
            if (added) names.push_back(frame);
            ids.push_back(it->second);
        }
        stacks.push_back(std::move(ids));
    }
    out.start_object();
    out.field("name", graph.name);
    out.field("source", graph.source);
    out.field("unit", graph.unit);
    out.field("frames", names);
    out.key("stacks");
    out.start_array();
    for (std::size_t i = 0; i < graph.stacks.size(); ++i) {
        out.start_object();
        out.field("value", graph.stacks[i].value);
        out.field("frames", stacks[i]);
        out.end_object();
    }
    out.end_array();
    out.end_object();
}

bench::FlameGraph read_flame_graph(const FieldReader& object) {
    bench::FlameGraph graph;
    graph.name = object.string("name");
    graph.source = object.string("source");
    graph.unit = object.string("unit");
    const std::vector<std::string> names = object["frames"].as_strings();
    const FieldReader stacks = object.array("stacks");
    for (std::size_t i = 0; i < stacks.size(); ++i) {
        const FieldReader stack = stacks.at(i).as_object();
        bench::FlameStack out;
        out.value = stack.number("value");
        const FieldReader frames = stack.array("frames");
        if (frames.size() == 0) frames.fail("must name at least one frame");
        for (std::size_t j = 0; j < frames.size(); ++j) {
            const FieldReader frame = frames.at(j);
            const long long id = frame.as_int64();
            if (id < 0 || static_cast<std::size_t>(id) >= names.size())
                frame.fail("is not an index into frames (0 to " + std::to_string(names.size()) + " - 1)");
            out.frames += (j ? ";" : "") + names[static_cast<std::size_t>(id)];
        }
        graph.stacks.push_back(std::move(out));
    }
    return graph;
}

}  // namespace

namespace {

void write_profile_block(JsonOut& out, const bench::Profile& profile, bool events, const std::string& trace_file) {
    out.start_object();
    out.field("call", profile.call);
    out.field("operator_profiler", profile.operator_profiler);
    out.field("calls", profile.calls);
    out.field("call_ms", profile.call_ms);
    out.field("unprofiled_call_ms", profile.unprofiled_call_ms);
    out.field("overhead", profile.overhead);
    out.key("operators");
    out.start_array();
    for (const bench::ProfileOperator& op : profile.operators) {
        out.start_object();
        out.field("name", op.name);
        out.field("calls", op.calls);
        out.field("self_ms", op.self_ms);
        out.field("total_ms", op.total_ms);
        out.field("flops", op.flops);
        out.field("input_shapes", op.input_shapes);
        out.end_object();
    }
    out.end_array();
    out.key("modules");
    out.start_array();
    for (const bench::ProfileModule& module : profile.modules) {
        out.start_object();
        out.field("name", module.name);
        out.field("depth", module.depth);
        out.field("calls", module.calls);
        out.field("total_ms", module.total_ms);
        out.field("share", module.share);
        out.field("parameters", module.parameters);
        out.field("allocated_bytes", module.allocated_bytes);
        out.field("peak_bytes", module.peak_bytes);
        out.end_object();
    }
    out.end_array();
    out.key("flame_graphs");
    out.start_array();
    for (const bench::FlameGraph& graph : profile.flame_graphs) write_flame_graph(out, graph);
    out.end_array();
    out.field("sampler", profile.sampler);
    out.field("samples", profile.samples);
    out.field("notes", profile.notes);
    if (!events) {
        if (!trace_file.empty()) out.field("trace_file", trace_file);
    } else {
        out.key("trace");
        out.start_array();
        for (const bench::TraceEvent& event : profile.trace) {
            out.start_object();
            out.field("name", event.name);
            out.field("category", event.category);
            out.field("start_us", event.start_us);
            out.field("duration_us", event.duration_us);
            out.field("thread", event.thread);
            out.field("input_shapes", event.input_shapes);
            out.end_object();
        }
        out.end_array();
    }
    out.end_object();
}

}  // namespace

void write_profile(JsonOut& out, const bench::Profile& profile) { write_profile_block(out, profile, true, {}); }

void write_profile(JsonOut& out, const bench::Profile& profile, const std::string& trace_file) {
    write_profile_block(out, profile, false, trace_file);
}

bench::Profile read_profile(const FieldReader& object) {
    const FieldReader document = object.as_object();
    bench::Profile profile;
    profile.call = document.string("call");
    profile.operator_profiler = document.string("operator_profiler");
    profile.calls = document.integer64("calls");
    profile.call_ms = document.number("call_ms");
    profile.unprofiled_call_ms = document.number("unprofiled_call_ms");
    profile.overhead = document.number("overhead");
    const FieldReader operators = document.array("operators");
    for (std::size_t i = 0; i < operators.size(); ++i) {
        const FieldReader op = operators.at(i).as_object();
        profile.operators.push_back({op.string("name"), op.number("calls"), op.number("self_ms"), op.number("total_ms"),
                                     op.number("flops"), op.string("input_shapes")});
    }
    const FieldReader modules = document.array("modules");
    for (std::size_t i = 0; i < modules.size(); ++i) {
        const FieldReader module = modules.at(i).as_object();
        bench::ProfileModule out;
        out.name = module.string("name");
        out.depth = module.integer("depth");
        out.calls = module.number("calls");
        out.total_ms = module.number("total_ms");
        out.share = module.number("share");
        out.parameters = module.number("parameters");
        out.allocated_bytes = module.number("allocated_bytes");
        out.peak_bytes = module.number("peak_bytes");
        profile.modules.push_back(std::move(out));
    }
    const FieldReader graphs = document.array("flame_graphs");
    for (std::size_t i = 0; i < graphs.size(); ++i)
        profile.flame_graphs.push_back(read_flame_graph(graphs.at(i).as_object()));
    profile.sampler = document.string("sampler");
    profile.samples = document.integer64("samples");
    profile.notes = document["notes"].as_strings();
    if (document.has("trace_file")) profile.trace_file = document.string("trace_file");
    if (document.has("trace")) {
        const FieldReader trace = document.array("trace");
        for (std::size_t i = 0; i < trace.size(); ++i) {
            const FieldReader event = trace.at(i).as_object();
            profile.trace.push_back({event.string("name"), event.string("category"), event.number("start_us"),
                                     event.number("duration_us"), event.integer64("thread"),
                                     event.string("input_shapes")});
        }
    }
    return profile;
}

}  // namespace benchhost
