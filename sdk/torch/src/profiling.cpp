// The LibTorch layer's operator profiler: LibTorch's legacy profiler around each
// profiled call, its events folded into the operator and module tables, the operators'
// flame graph and the trace (<bench/torch/profiling.hpp>).
#include <bench/torch/profiling.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include <torch/csrc/autograd/profiler_legacy.h>
#include <torch/version.h>

namespace bench::libtorch {

namespace {

namespace tp = torch::autograd::profiler;

/// Each session's events: one list per thread, as disableProfilerLegacy returns them.
using Session = tp::thread_event_lists;

constexpr std::size_t max_trace_events = 20000;

std::string format_shapes(const std::vector<std::vector<int64_t>>& shapes) {
    std::string out = "[";
    for (std::size_t i = 0; i < shapes.size(); ++i) {
        out += i ? ", [" : "[";
        for (std::size_t j = 0; j < shapes[i].size(); ++j) out += (j ? ", " : "") + std::to_string(shapes[i][j]);
        out += "]";
    }
    out += "]";
    if (out.size() > 240) out = out.substr(0, 237) + "...";
    return out;
}

/// The parameters of a set of modules, each tensor once.
double count_unique(const std::vector<const torch::nn::Module*>& modules) {
    std::unordered_set<const void*> seen;
    double count = 0;
    for (const torch::nn::Module* module : modules)
        for (const auto& parameter : module->parameters(/*recurse=*/true))
            if (seen.insert(parameter.unsafeGetTensorImpl()).second) count += static_cast<double>(parameter.numel());
    return count;
}

std::string frame_name(std::string name) {
    std::replace(name.begin(), name.end(), ';', ':');
    return name;
}

}  // namespace

std::map<std::string, double> module_parameters(const torch::nn::Module& module) {
    std::map<std::string, std::vector<const torch::nn::Module*>> by_path, by_last, by_prefix;
    for (const auto& item : module.named_modules(/*name_prefix=*/"", /*include_self=*/false)) {
        const std::string& path = item.key();
        const torch::nn::Module* sub = item.value().get();
        by_path[path].push_back(sub);
        const auto dot = path.rfind('.');
        const std::string last = dot == std::string::npos ? path : path.substr(dot + 1);
        by_last[last].push_back(sub);
        // Prefixes before each '_' or '.' of the path, and of its last component.
        for (const std::string& text : {path, last})
            for (std::size_t i = 0; i < text.size(); ++i)
                if ((text[i] == '_' || text[i] == '.') && i > 0) by_prefix[text.substr(0, i)].push_back(sub);
    }
    std::map<std::string, double> out;
    for (const auto& [prefix, modules] : by_prefix) {
        // Only a prefix that groups modules (its own submodules are in it too): dedupe.
        std::vector<const torch::nn::Module*> unique;
        for (const auto* m : modules)
            if (std::find(unique.begin(), unique.end(), m) == unique.end()) unique.push_back(m);
        out[prefix] = count_unique(unique);
    }
    for (const auto& [last, modules] : by_last)
        if (modules.size() == 1) out[last] = count_unique(modules);
    for (const auto& [path, modules] : by_path) out[path] = count_unique(modules);
    return out;
}

struct TorchOperatorProfiler::Impl {
    struct Operator {
        double calls = 0, self_us = 0, total_us = 0, flops = 0;
        std::map<std::string, double> self_by_shapes;
    };
    struct Module {
        std::size_t order = 0;
        int depth = 0;
        double calls = 0, total_us = 0, allocated = 0, peak = 0;
    };

    std::string call_name;
    std::map<std::string, double> parameters;
    bool running = false;
    // What the profiled calls so far added up to. Each session's events are folded in
    // as the profiler stops and then dropped: kept until the report, LibTorch's events
    // (with their input shapes and FLOPs' arguments) made every later profiled call
    // slower, a 512x512 matrix product 2.4x (docs/profiling.md, "The overhead").
    std::map<std::string, Operator> operators;
    std::map<std::string, Module> modules;
    std::map<std::string, double> flame;  // stack -> self time, us
    std::vector<TraceEvent> trace;
    std::size_t traced_sessions = 0;

    void fold(Session& session);
};

TorchOperatorProfiler::TorchOperatorProfiler(std::string call_name, std::map<std::string, double> parameters)
    : impl_(std::make_unique<Impl>()) {
    impl_->call_name = std::move(call_name);
    impl_->parameters = std::move(parameters);
}

TorchOperatorProfiler::~TorchOperatorProfiler() {
    if (impl_->running) {
        try {
            tp::disableProfilerLegacy();
        } catch (...) {  // a destructor must not throw
        }
    }
}

std::string TorchOperatorProfiler::name() const {
    return std::string("LibTorch ") + TORCH_VERSION + " profiler (legacy API, CPU events)";
}

void TorchOperatorProfiler::start() {
    const tp::ProfilerConfig config(tp::ProfilerState::CPU, /*report_input_shapes=*/true, /*profile_memory=*/true,
                                    /*with_stack=*/false, /*with_flops=*/true, /*with_modules=*/false);
    tp::enableProfilerLegacy(config);
    impl_->running = true;
}

void TorchOperatorProfiler::stop() {
    impl_->running = false;
    Session session = tp::disableProfilerLegacy();
    impl_->fold(session);
}

void TorchOperatorProfiler::Impl::fold(Session& session) {
    struct Open {
        tp::LegacyEvent* push = nullptr;
        double start_us = 0, children_us = 0;
        bool module = false;
        int depth = 0;  // modules around it
        int64_t live_at_start = 0, peak = 0;  // bytes live (allocated less freed) in the thread's events
        int64_t allocated = 0;                // bytes allocated while it was open
        std::string path;  // its flame graph stack
    };
    const std::string root = frame_name(call_name);
    std::vector<TraceEvent> session_trace;
    for (auto& events : session) {
        std::vector<Open> stack;
        std::map<std::string, int> open_operators;  // names open on the stack: a nested call counts once
        int64_t live = 0;
        for (tp::LegacyEvent& event : events) {
            switch (event.kind()) {
                case tp::EventKind::PushRange: {
                    Open open;
                    open.push = &event;
                    open.start_us = event.cpuUs();
                    open.module = event.scope() == static_cast<uint8_t>(at::RecordScope::USER_SCOPE);
                    open.depth = 0;
                    for (const Open& outer : stack) open.depth += outer.module ? 1 : 0;
                    open.live_at_start = live;
                    open.peak = live;
                    open.path = (stack.empty() ? root : stack.back().path) + ";" + frame_name(event.name());
                    if (!open.module) ++open_operators[event.name()];
                    stack.push_back(std::move(open));
                    break;
                }
                case tp::EventKind::PopRange: {
                    std::size_t i = stack.size();
                    while (i > 0 && stack[i - 1].push->handle() != event.handle()) --i;
                    if (i == 0) break;  // began before the profiler: not ours
                    while (stack.size() > i) {  // above it: began and never ended, dropped
                        if (!stack.back().module) --open_operators[stack.back().push->name()];
                        stack.pop_back();
                    }
                    Open open = std::move(stack.back());
                    stack.pop_back();
                    const std::string name = open.push->name();
                    if (!open.module) --open_operators[name];
                    const double duration = event.cpuUs() - open.start_us;
                    const double self = duration - open.children_us;
                    if (!stack.empty()) stack.back().children_us += duration;
                    flame[open.path] += self;
                    if (open.module) {
                        auto [it, added] = modules.try_emplace(name);
                        Module& m = it->second;
                        if (added) m.order = modules.size();
                        m.depth = open.depth;
                        m.calls += 1;
                        m.total_us += duration;
                        m.allocated += static_cast<double>(open.allocated);
                        m.peak = std::max(m.peak, static_cast<double>(open.peak - open.live_at_start));
                    } else {
                        Operator& op = operators[name];
                        op.calls += 1;
                        op.self_us += self;
                        if (open_operators[name] == 0) op.total_us += duration;
                        op.flops += static_cast<double>(open.push->flops());
                        op.self_by_shapes[format_shapes(open.push->shapes())] += self;
                    }
                    session_trace.push_back({name, open.module ? "module" : "operator", open.start_us, duration,
                                             static_cast<long long>(event.threadId()),
                                             open.module ? std::string() : format_shapes(open.push->shapes())});
                    break;
                }
                case tp::EventKind::MemoryAlloc:
                    live += event.cpuMemoryUsage();  // negative: freed
                    for (Open& open : stack) {
                        if (!open.module) continue;
                        open.peak = std::max(open.peak, live);
                        if (event.cpuMemoryUsage() > 0) open.allocated += event.cpuMemoryUsage();
                    }
                    break;
                case tp::EventKind::Mark:
                    break;
            }
        }
    }
    if (trace.size() + session_trace.size() <= max_trace_events) {
        trace.insert(trace.end(), session_trace.begin(), session_trace.end());
        ++traced_sessions;
    }
}

void TorchOperatorProfiler::report(Profile& profile, long long calls) {
    const auto& operators = impl_->operators;
    const auto& modules = impl_->modules;
    const std::size_t traced_sessions = impl_->traced_sessions;

    const double per_call = calls > 0 ? 1.0 / static_cast<double>(calls) : 0.0;
    for (const auto& [name, op] : operators) {
        ProfileOperator out;
        out.name = name;
        out.calls = op.calls * per_call;
        out.self_ms = op.self_us / 1e3 * per_call;
        out.total_ms = op.total_us / 1e3 * per_call;
        out.flops = op.flops * per_call;
        double best = -1;
        for (const auto& [shapes, self] : op.self_by_shapes)
            if (self > best) {
                best = self;
                out.input_shapes = shapes;
            }
        profile.operators.push_back(std::move(out));
    }
    std::stable_sort(profile.operators.begin(), profile.operators.end(),
                     [](const ProfileOperator& a, const ProfileOperator& b) { return a.self_ms > b.self_ms; });

    std::vector<std::pair<std::size_t, ProfileModule>> ordered;
    for (const auto& [name, m] : modules) {
        ProfileModule out;
        out.name = name;
        out.depth = m.depth;
        out.calls = m.calls * per_call;
        out.total_ms = m.total_us / 1e3 * per_call;
        if (const auto it = impl_->parameters.find(name); it != impl_->parameters.end()) out.parameters = it->second;
        out.allocated_bytes = m.allocated * per_call;
        out.peak_bytes = m.peak;
        ordered.emplace_back(m.order, std::move(out));
    }
    std::sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& [order, module] : ordered) profile.modules.push_back(std::move(module));

    FlameGraph graph;
    graph.name = "operators";
    graph.source = name() + ": modules and operators as they nest, each frame's self time per call";
    graph.unit = "ms";
    for (const auto& [stack, self_us] : impl_->flame)
        if (self_us > 0) graph.stacks.push_back({stack, self_us / 1e3 * per_call});
    profile.flame_graphs.push_back(std::move(graph));

    profile.trace.insert(profile.trace.end(), impl_->trace.begin(), impl_->trace.end());
    if (traced_sessions < static_cast<std::size_t>(calls))
        profile.notes.push_back("trace: the operators of " + std::to_string(traced_sessions) + " of " +
                                std::to_string(calls) + " profiled calls (at most " +
                                std::to_string(max_trace_events) + " events)");
    if (profile.modules.empty())
        profile.notes.push_back("modules: none ran inside a ModuleScope (a traced TorchScript graph has none)");
    // A report ends what it reports: the next profiled calls start from nothing.
    impl_->operators.clear();
    impl_->modules.clear();
    impl_->flame.clear();
    impl_->trace.clear();
    impl_->traced_sessions = 0;
}

void profile(Context& ctx, const std::string& call_name, std::function<void()> call,
             std::map<std::string, double> parameters) {
    if (!ctx.profiling()) return;
    ProfileCall target;
    target.name = call_name;
    target.call = std::move(call);
    target.operators = std::make_shared<TorchOperatorProfiler>(call_name, std::move(parameters));
    ctx.profile(target);
}

}  // namespace bench::libtorch
