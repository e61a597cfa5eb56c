// The LibTorch layer's operator profiler: LibTorch's profiler around each profiled call
// (Kineto's where LibTorch has it, else the legacy one), its events folded into the
// operator and module tables, the operators' flame graph and the trace
// (<bench/torch/profiling.hpp>).
#include <bench/torch/profiling.hpp>

#include <dlfcn.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <torch/csrc/autograd/profiler_kineto.h>
#include <torch/csrc/autograd/profiler_legacy.h>
#include <torch/cuda.h>
#include <torch/version.h>

#include <bench/internal/profile/span_nesting.hpp>

#if __has_include(<kineto/ActivityType.h>)
#include <kineto/ActivityType.h>
#define BENCH_KINETO_ACTIVITY_TYPES 1
#endif

namespace bench::libtorch {

namespace {

namespace tp = torch::autograd::profiler;

/// Each legacy session's events: one list per thread, as disableProfilerLegacy returns them.
using Session = tp::thread_event_lists;

/// libkineto::ActivityType's values (kineto/ActivityType.h), as KinetoEvent::activityType
/// returns them: the header is not on LibTorch's include path in every package.
enum KinetoActivity : uint8_t {
    cpu_op = 0,
    user_annotation = 1,  // a RecordFunction of USER_SCOPE: a ModuleScope
    gpu_memcpy = 3,
    gpu_memset = 4,
    concurrent_kernel = 5,
};
#ifdef BENCH_KINETO_ACTIVITY_TYPES
static_assert(cpu_op == static_cast<int>(libkineto::ActivityType::CPU_OP));
static_assert(user_annotation == static_cast<int>(libkineto::ActivityType::USER_ANNOTATION));
static_assert(gpu_memcpy == static_cast<int>(libkineto::ActivityType::GPU_MEMCPY));
static_assert(gpu_memset == static_cast<int>(libkineto::ActivityType::GPU_MEMSET));
static_assert(concurrent_kernel == static_cast<int>(libkineto::ActivityType::CONCURRENT_KERNEL));
#endif

enum class Backend { kineto, legacy };

/// Whether the LibTorch this process runs has Kineto. torch::profiler::kKinetoAvailable
/// says how the file that reads it was compiled (USE_KINETO), which LibTorch's CMake
/// package does not tell its users, and its header needs Kineto's: ask the library that
/// holds the profiler whether it exports libkineto::api().
bool libtorch_has_kineto() {
    static const bool found = [] {
        Dl_info info{};
        if (dladdr(reinterpret_cast<void*>(&tp::disableProfiler), &info) == 0 || info.dli_fname == nullptr)
            return false;
        void* library = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
        if (library == nullptr) return false;
        const bool has = dlsym(library, "_ZN9libkineto3apiEv") != nullptr;  // libkineto::api()
        dlclose(library);
        return has;
    }();
    return found;
}

/// Kineto where LibTorch has it, else the legacy profiler; BENCH_TORCH_PROFILER=legacy
/// or =kineto asks for one.
Backend choose_backend() {
    const char* env = std::getenv("BENCH_TORCH_PROFILER");
    const std::string asked = env == nullptr ? "" : env;
    if (asked == "legacy") return Backend::legacy;
    if (!asked.empty() && asked != "kineto")
        throw std::invalid_argument("BENCH_TORCH_PROFILER=" + asked +
                                    ": expected kineto or legacy (unset: Kineto where LibTorch has it)");
    if (libtorch_has_kineto()) return Backend::kineto;
    if (asked == "kineto")
        throw std::runtime_error(std::string("BENCH_TORCH_PROFILER=kineto, but this LibTorch (") + TORCH_VERSION +
                                 ") has no Kineto: its libtorch_cpu exports no libkineto::api()");
    return Backend::legacy;
}

/// Kineto writes lines of its own to stderr, which the host copies into its log: two at
/// every profiled call ("profiler_start", "profiler_stop") and, on a machine without a
/// GPU, an error about the device count. Silenced before Kineto starts (it reads
/// KINETO_LOG_LEVEL then), unless the environment sets a level. Once, from the thread
/// that starts the profiler.
void quiet_kineto() {
    static std::once_flag once;
    std::call_once(once, [] { setenv("KINETO_LOG_LEVEL", "6", /*overwrite=*/0); });  // above its highest, 5
}

/// The device a scenario's work runs on, from its config ("auto": CUDA where there is
/// one); one that is no device: the CPU (select_device has said why already).
torch::Device scenario_device(const std::string& text) {
    if (text == "auto") return torch::cuda::is_available() ? torch::Device(torch::kCUDA) : torch::Device(torch::kCPU);
    try {
        return torch::Device(text);
    } catch (const std::exception&) {
        return torch::Device(torch::kCPU);
    }
}

/// Three significant digits: "1.23", "0.0456", "123".
std::string figure_text(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3g", value);
    return text;
}

std::string ms_text(double ms) { return figure_text(ms) + " ms"; }

/// The trace's track of a device's stream: below 0, apart from the threads
/// (bench::TraceEvent::thread).
long long kernel_track(int device, int64_t stream) {
    return -(1 + static_cast<long long>(std::max(device, 0)) * 1'000'000 + std::max<long long>(stream, 0) % 1'000'000);
}

/// A kernel's name as a frame: templated CUDA names run to hundreds of characters.
std::string kernel_frame(const std::string& name) {
    std::string out = name.size() > 120 ? name.substr(0, 117) + "..." : name;
    std::replace(out.begin(), out.end(), ';', ':');
    return out;
}

constexpr std::size_t max_trace_events = 20000;

std::string format_shapes(c10::ArrayRef<std::vector<int64_t>> shapes) {
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
    class Thread;

    std::string call_name;
    std::map<std::string, double> parameters;
    Backend backend = Backend::kineto;
    bool cuda_work = false;  // the profiled work runs on a CUDA device this machine has
    bool cuda = false;  // and Kineto records its kernels
    bool running = false;
    std::exception_ptr unusable;  // why no profiler can run (BENCH_TORCH_PROFILER), for start()
    // What the profiled calls so far added up to. Each session's events are folded in
    // as the profiler stops and then dropped: kept until the report, LibTorch's events
    // (with their input shapes and FLOPs' arguments) made every later profiled call
    // slower, a 512x512 matrix product 2.4x (docs/profiling.md, "The overhead").
    std::map<std::string, Operator> operators;
    std::map<std::string, Module> modules;
    std::map<std::string, double> flame;  // stack -> self time, us
    // CUDA kernels (and copies and memsets on the device): their device time, us, by the
    // stack of the operator that launched them and the kernel's name, and by operator.
    std::map<std::string, double> device_flame;
    std::map<std::string, double> device_by_operator;
    double device_us = 0, kernels = 0;
    std::vector<TraceEvent> trace;
    std::size_t traced_sessions = 0;

    /// Where the profiled work runs: on CUDA, where there is CUDA, Kineto records the
    /// device's kernels too.
    void set_device(const torch::Device& device);
    void fold_legacy(Session& session);
    void fold_kineto(const tp::ProfilerResult& result);
    void keep_trace(std::vector<TraceEvent>& session_trace);
};

/// One thread's frames as they nest, opened and closed in order (innermost first), and
/// the memory events between them: what both profilers' events become.
class TorchOperatorProfiler::Impl::Thread {
public:
    struct Frame {
        std::string name, path, shapes;  // path: its flame graph stack
        bool module = false;
        int depth = 0;  // modules around it
        double start_us = 0, children_us = 0, flops = 0;
        int64_t live_at_start = 0, peak = 0;  // bytes live (allocated less freed) in the thread's events
        int64_t allocated = 0;  // bytes allocated while it was open
    };

    Thread(Impl& impl, long long thread, std::vector<TraceEvent>& trace)
        : impl_(impl), root_(frame_name(impl.call_name)), thread_(thread), trace_(trace) {}

    const Frame& open(const std::string& name, bool module, double start_us, std::string shapes, double flops) {
        Frame frame;
        frame.name = name;
        frame.module = module;
        for (const Frame& outer : stack_) frame.depth += outer.module ? 1 : 0;
        frame.start_us = start_us;
        frame.live_at_start = frame.peak = live_;
        frame.path = (stack_.empty() ? root_ : stack_.back().path) + ";" + frame_name(name);
        frame.shapes = std::move(shapes);
        frame.flops = flops;
        if (module) {
            auto [it, added] = impl_.modules.try_emplace(name);
            if (added) it->second.order = impl_.modules.size();  // the order they began in
        } else {
            ++open_operators_[name];
        }
        stack_.push_back(std::move(frame));
        return stack_.back();
    }

    /// The innermost frame, `duration_us` after it opened.
    void close(double duration_us) {
        Frame frame = std::move(stack_.back());
        stack_.pop_back();
        if (!frame.module) --open_operators_[frame.name];
        // Never below 0: spans rebuilt from times may overlap by a clock's tick.
        const double self = std::max(0.0, duration_us - frame.children_us);
        if (!stack_.empty()) stack_.back().children_us += duration_us;
        impl_.flame[frame.path] += self;
        if (frame.module) {
            Module& m = impl_.modules[frame.name];
            m.depth = frame.depth;
            m.calls += 1;
            m.total_us += duration_us;
            m.allocated += static_cast<double>(frame.allocated);
            m.peak = std::max(m.peak, static_cast<double>(frame.peak - frame.live_at_start));
        } else {
            Operator& op = impl_.operators[frame.name];
            op.calls += 1;
            op.self_us += self;
            if (open_operators_[frame.name] == 0) op.total_us += duration_us;  // a nested call of itself counts once
            op.flops += frame.flops;
            op.self_by_shapes[frame.shapes] += self;
        }
        trace_.push_back({frame.name, frame.module ? "module" : "operator", frame.start_us, duration_us, thread_,
                          frame.module ? std::string() : frame.shapes});
    }

    /// The innermost frame, which began and never ended: dropped.
    void drop() {
        if (!stack_.back().module) --open_operators_[stack_.back().name];
        stack_.pop_back();
    }

    /// Bytes allocated (freed: negative) now: the open modules' memory.
    void memory(int64_t bytes) {
        live_ += bytes;
        for (Frame& frame : stack_) {
            if (!frame.module) continue;
            frame.peak = std::max(frame.peak, live_);
            if (bytes > 0) frame.allocated += bytes;
        }
    }

    std::vector<Frame>& stack() { return stack_; }

private:
    Impl& impl_;
    std::string root_;
    long long thread_;
    std::vector<TraceEvent>& trace_;
    std::vector<Frame> stack_;
    std::map<std::string, int> open_operators_;  // names open on the stack
    int64_t live_ = 0;
};

TorchOperatorProfiler::TorchOperatorProfiler(std::string call_name, std::map<std::string, double> parameters)
    : impl_(std::make_unique<Impl>()) {
    impl_->call_name = std::move(call_name);
    impl_->parameters = std::move(parameters);
    try {
        impl_->backend = choose_backend();
    } catch (...) {  // start() throws it, into the profile's notes: the scenario goes on
        impl_->unusable = std::current_exception();
    }
}

void TorchOperatorProfiler::Impl::set_device(const torch::Device& device) {
    cuda_work = device.is_cuda() && torch::cuda::is_available();
    cuda = cuda_work && backend == Backend::kineto;
}

TorchOperatorProfiler::~TorchOperatorProfiler() {
    if (impl_->running) {
        try {
            if (impl_->backend == Backend::kineto) tp::disableProfiler();
            else tp::disableProfilerLegacy();
        } catch (...) {  // a destructor must not throw
        }
    }
}

std::string TorchOperatorProfiler::name() const {
    std::string out = std::string("LibTorch ") + TORCH_VERSION + " profiler ";
    if (impl_->unusable) return out + "(none: BENCH_TORCH_PROFILER)";
    if (impl_->backend == Backend::legacy) return out + "(legacy API, CPU events)";
    return out + (impl_->cuda ? "(Kineto, CPU and CUDA events)" : "(Kineto, CPU events)");
}

void TorchOperatorProfiler::start() {
    if (impl_->unusable) std::rethrow_exception(impl_->unusable);
    if (impl_->running) throw std::logic_error("TorchOperatorProfiler::start: the profiler is running already");
    const bool shapes = true, memory = true, stack = false, flops = true, modules = false;
    if (impl_->backend == Backend::kineto) {
        using torch::profiler::impl::ActivityType;
        quiet_kineto();
        const tp::ProfilerConfig config(tp::ProfilerState::KINETO, shapes, memory, stack, flops, modules);
        std::set<ActivityType> activities = {ActivityType::CPU};
        if (impl_->cuda) activities.insert(ActivityType::CUDA);
        tp::prepareProfiler(config, activities);  // Kineto's trace: enableProfiler starts it
        tp::enableProfiler(config, activities);
    } else {
        tp::enableProfilerLegacy(tp::ProfilerConfig(tp::ProfilerState::CPU, shapes, memory, stack, flops, modules));
    }
    impl_->running = true;
}

void TorchOperatorProfiler::stop() {
    if (!impl_->running) throw std::logic_error("TorchOperatorProfiler::stop: the profiler is not running");
    impl_->running = false;
    if (impl_->backend == Backend::kineto) {
        const std::unique_ptr<tp::ProfilerResult> result = tp::disableProfiler();
        if (result) impl_->fold_kineto(*result);
    } else {
        Session session = tp::disableProfilerLegacy();
        impl_->fold_legacy(session);
    }
}

void TorchOperatorProfiler::Impl::keep_trace(std::vector<TraceEvent>& session_trace) {
    if (trace.size() + session_trace.size() <= max_trace_events) {
        trace.insert(trace.end(), session_trace.begin(), session_trace.end());
        ++traced_sessions;
    }
}

void TorchOperatorProfiler::Impl::fold_legacy(Session& session) {
    // Push and pop events per thread, in order, memory events between them.
    std::vector<TraceEvent> session_trace;
    for (auto& events : session) {
        if (events.empty()) continue;
        Thread thread(*this, static_cast<long long>(events.front().threadId()), session_trace);
        std::vector<tp::LegacyEvent*> pushes;  // of the open frames
        for (tp::LegacyEvent& event : events) {  // not const: its flops() is not
            switch (event.kind()) {
                case tp::EventKind::PushRange: {
                    const bool module = event.scope() == static_cast<uint8_t>(at::RecordScope::USER_SCOPE);
                    thread.open(event.name(), module, event.cpuUs(),
                                module ? std::string() : format_shapes(event.shapes()),
                                module ? 0.0 : static_cast<double>(event.flops()));
                    pushes.push_back(&event);
                    break;
                }
                case tp::EventKind::PopRange: {
                    std::size_t i = pushes.size();
                    while (i > 0 && pushes[i - 1]->handle() != event.handle()) --i;
                    if (i == 0) break;  // began before the profiler: not ours
                    while (pushes.size() > i) {  // above it: began and never ended, dropped
                        thread.drop();
                        pushes.pop_back();
                    }
                    thread.close(event.cpuUs() - thread.stack().back().start_us);
                    pushes.pop_back();
                    break;
                }
                case tp::EventKind::MemoryAlloc:
                    thread.memory(event.cpuMemoryUsage());  // negative: freed
                    break;
                case tp::EventKind::Mark:
                    break;
            }
        }
    }
    keep_trace(session_trace);
}

void TorchOperatorProfiler::Impl::fold_kineto(const tp::ProfilerResult& result) {
    // Kineto's events are complete spans (start, end, thread) and instants, none with a
    // parent: the nesting is rebuilt per thread from the times (nest_spans).
    std::map<uint64_t, std::vector<internal::Span>> spans;  // by thread; index: into events
    std::map<uint64_t, std::vector<internal::Instant>> memory;
    std::vector<const tp::KinetoEvent*> on_device;
    // The memory of the device the work runs on: a module's activations.
    const c10::DeviceType memory_device = cuda ? c10::DeviceType::CUDA : c10::DeviceType::CPU;
    const auto& events = result.events();
    for (std::size_t i = 0; i < events.size(); ++i) {
        const tp::KinetoEvent& event = events[i];
        const uint8_t activity = event.activityType();
        const c10::DeviceType device = event.deviceType();
        if (event.name() == "[memory]") {
            if (device == memory_device) memory[event.startThreadId()].push_back({event.startNs(), i});
        } else if (device == c10::DeviceType::CPU && (activity == cpu_op || activity == user_annotation)) {
            spans[event.startThreadId()].push_back({event.startNs(), event.startNs() + event.durationNs(), i});
        } else if (device == c10::DeviceType::CUDA &&
                   (activity == concurrent_kernel || activity == gpu_memcpy || activity == gpu_memset)) {
            on_device.push_back(&event);
        }
        // The rest (the CUDA runtime's calls, a module's range on the device) is in the
        // time of the operator around it.
    }

    std::vector<TraceEvent> session_trace;
    // The operators (and modules) that may launch kernels, by their correlation id: name
    // and stack.
    std::unordered_map<uint64_t, std::pair<std::string, std::string>> launchers;
    std::set<uint64_t> threads;
    for (const auto& [thread, list] : spans) threads.insert(thread);
    for (const auto& [thread, list] : memory) threads.insert(thread);
    for (const uint64_t id : threads) {
        Thread thread(*this, static_cast<long long>(id), session_trace);
        internal::nest_spans(
            std::move(spans[id]), std::move(memory[id]),
            [&](const internal::Span& span) {
                const tp::KinetoEvent& event = events[span.index];
                const bool module = event.scope() == static_cast<uint8_t>(at::RecordScope::USER_SCOPE);
                const auto& frame = thread.open(event.name(), module, static_cast<double>(span.start) / 1e3,
                                                module ? std::string() : format_shapes(event.shapes()),
                                                module ? 0.0 : static_cast<double>(event.flops()));
                if (cuda) launchers[event.correlationId()] = {frame.name, frame.path};
            },
            [&](const internal::Span& span) { thread.close(static_cast<double>(span.end - span.start) / 1e3); },
            [&](const internal::Instant& at) { thread.memory(events[at.index].nBytes()); });
    }

    // Kernels under the operator that launched them: Kineto links each (by the correlation
    // id the profiler pushes as an operator begins) to the innermost operator open on the
    // CPU when it was launched.
    const std::string root = frame_name(call_name);
    for (const tp::KinetoEvent* kernel : on_device) {
        const double us = static_cast<double>(kernel->durationNs()) / 1e3;
        const std::string name = kernel->name();
        const auto launcher = launchers.find(kernel->linkedCorrelationId());
        const bool known = launcher != launchers.end();
        device_us += us;
        kernels += 1;
        device_by_operator[known ? launcher->second.first : "(no operator)"] += us;
        device_flame[(known ? launcher->second.second : root + ";(no operator)") + ";" + kernel_frame(name)] += us;
        session_trace.push_back({name,
                                 "kernel",
                                 static_cast<double>(kernel->startNs()) / 1e3,
                                 us,
                                 kernel_track(kernel->deviceIndex(), kernel->deviceResourceId()),
                                 {}});
    }
    keep_trace(session_trace);
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
        if (m.calls == 0) continue;  // began, and never ended in a profiled call
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

    if (impl_->cuda && impl_->kernels == 0) {
        profile.notes.push_back(
            "device: Kineto recorded no CUDA kernel (CUPTI may be missing, or not permitted to "
            "this process): the operators' times are the CPU's");
    } else if (impl_->cuda) {
        FlameGraph device;
        device.name = "device";
        device.source = name() +
                        ": the CUDA kernels, copies and memsets under the operators that launched them, each "
                        "one's time on the device per call";
        device.unit = "ms";
        for (const auto& [stack, us] : impl_->device_flame)
            if (us > 0) device.stacks.push_back({stack, us / 1e3 * per_call});
        profile.flame_graphs.push_back(std::move(device));
        std::vector<std::pair<double, std::string>> by_time;
        for (const auto& [op, us] : impl_->device_by_operator) by_time.emplace_back(us, op);
        std::sort(by_time.begin(), by_time.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
        std::string note = "device: " + ms_text(impl_->device_us / 1e3 * per_call) + " of CUDA kernels per call (" +
                           figure_text(impl_->kernels * per_call) +
                           " kernels, copies and memsets); by the operators "
                           "that launched them:";
        for (std::size_t i = 0; i < by_time.size() && i < 5; ++i)
            note += (i ? ", " : " ") + by_time[i].second + " " + ms_text(by_time[i].first / 1e3 * per_call);
        profile.notes.push_back(note + (by_time.size() > 5 ? ", ..." : ""));
    } else if (impl_->cuda_work) {
        profile.notes.push_back(
            "device: the CUDA kernels are not profiled: this LibTorch has no Kineto, or "
            "BENCH_TORCH_PROFILER=legacy; the operators' times are the CPU's (launches)");
    }

    profile.trace.insert(profile.trace.end(), impl_->trace.begin(), impl_->trace.end());
    if (traced_sessions < static_cast<std::size_t>(calls))
        profile.notes.push_back("trace: the operators of " + std::to_string(traced_sessions) + " of " +
                                std::to_string(calls) + " profiled calls (at most " + std::to_string(max_trace_events) +
                                " events)");
    if (profile.modules.empty())
        profile.notes.push_back("modules: none ran inside a ModuleScope (a traced TorchScript graph has none)");
    // A report ends what it reports: the next profiled calls start from nothing.
    impl_->operators.clear();
    impl_->modules.clear();
    impl_->flame.clear();
    impl_->device_flame.clear();
    impl_->device_by_operator.clear();
    impl_->device_us = impl_->kernels = 0;
    impl_->trace.clear();
    impl_->traced_sessions = 0;
}

void profile(Context& ctx, const std::string& call_name, std::function<void()> call,
             std::map<std::string, double> parameters) {
    if (!ctx.profiling()) return;
    ProfileCall target;
    target.name = call_name;
    target.call = std::move(call);
    auto operators = std::make_shared<TorchOperatorProfiler>(call_name, std::move(parameters));
    operators->impl_->set_device(scenario_device(ctx.config().device));
    target.operators = std::move(operators);
    ctx.profile(target);
}

}  // namespace bench::libtorch
