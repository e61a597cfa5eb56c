// The ranks of a distributed scenario (<bench/torch/distributed.hpp>): torchrun's
// environment, the c10d process group, the barrier before each sample and the rank's
// progress file.
//
// ProcessGroupGloo.hpp is compiled in only where USE_C10D_GLOO is defined, as LibTorch's
// CMake package defines it for a LibTorch with gloo (the pip wheel's), and here where it
// did not. The
// pip wheel ships c10d's headers but not gloo's, which that header includes: where they
// are missing, CMake adds sdk/torch/gloo_declarations/, which declares the few gloo
// classes it names (ProcessGroupGloo holds gloo's objects by pointer only, so its layout
// does not depend on them).
#ifndef USE_C10D_GLOO
#define USE_C10D_GLOO 1
#endif

#include <bench/torch/distributed.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>

#include <torch/csrc/distributed/c10d/HashStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

namespace bench::libtorch {

#if defined(BENCH_TORCH_WITH_CUDA)
// distributed_nccl.cpp: ProcessGroupNCCL of the ranks, on cuda:`device`.
c10::intrusive_ptr<c10d::Backend> make_nccl_backend(const c10::intrusive_ptr<c10d::Store>& store, int rank, int size,
                                                    int device);
#endif

namespace {

int environment_int(const char* name, int fallback) {
    const char* text = std::getenv(name);
    if (text == nullptr || *text == '\0') return fallback;
    char* end = nullptr;
    const long value = std::strtol(text, &end, 10);
    return *end == '\0' ? static_cast<int>(value) : fallback;
}

// How far a rank got, numbered as benchhost.distributed numbers it (the host compares
// the numbers of the ranks and says the text of the one behind).
constexpr long long progress_started = 1, progress_rendezvous = 2, progress_ready = 3,
                    progress_finished = 1'000'000'000;

struct RankState {
    std::mutex mutex;
    c10::intrusive_ptr<c10d::ProcessGroup> group;
    std::string backend;
    torch::Device device{torch::kCPU};  // the group's: what each timed call waits for
    int progress_fd = -1;
    long long samples = 0;
};

RankState& state() {
    // Never destroyed: the group's threads may outlive static destruction at exit, and
    // the process ends after its scenario.
    static auto* rank_state = new RankState();
    return *rank_state;
}

/// Writes "<number> <text>" into the rank's progress file, when the host named one; a
/// failure to write is no failure of the benchmark.
void write_progress(RankState& s, long long number, std::string_view text) {
    const char* path = std::getenv("BENCHHOST_RANK_PROGRESS");
    if (path == nullptr || *path == '\0') return;
    if (s.progress_fd < 0) s.progress_fd = ::open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    if (s.progress_fd < 0) return;
    std::string line = std::to_string(number) + " " + std::string(text);
    line.resize(std::min<std::size_t>(line.size(), 250));
    line += '\n';
    line.resize(256, ' ');
    [[maybe_unused]] const ssize_t written = ::pwrite(s.progress_fd, line.data(), line.size(), 0);
}

c10::intrusive_ptr<c10d::Store> rendezvous_store() {
    const char* address = std::getenv("MASTER_ADDR");
    if (address == nullptr || *address == '\0') {
        if (world_size() != 1)
            throw std::runtime_error("a process group of " + std::to_string(world_size()) +
                                     " ranks needs MASTER_ADDR and MASTER_PORT (the host sets them for the ranks of "
                                     "a distributed scenario)");
        return c10::make_intrusive<c10d::HashStore>();
    }
    const int port = environment_int("MASTER_PORT", -1);
    if (port <= 0 || port > 65535)
        throw std::runtime_error("MASTER_PORT is not a port: '" +
                                 std::string(std::getenv("MASTER_PORT") == nullptr ? "" : std::getenv("MASTER_PORT")) +
                                 "'");
    c10d::TCPStoreOptions options;
    options.port = static_cast<std::uint16_t>(port);
    options.isServer = rank() == 0;
    options.numWorkers = static_cast<std::size_t>(world_size());
    options.waitWorkers = true;
    return c10::make_intrusive<c10d::TCPStore>(address, options);
}

}  // namespace

int rank() { return environment_int("RANK", 0); }
int local_rank() { return environment_int("LOCAL_RANK", 0); }
int world_size() { return environment_int("WORLD_SIZE", 1); }
int local_world_size() { return environment_int("LOCAL_WORLD_SIZE", 1); }

std::string distributed_backend(const torch::Device& device) { return device.is_cuda() ? "nccl" : "gloo"; }

c10::intrusive_ptr<c10d::ProcessGroup> process_group(Context& ctx) {
    RankState& s = state();
    const std::lock_guard lock(s.mutex);
    if (s.group) {
        ctx.set_info("backend", s.backend);
        return s.group;
    }
    const torch::Device device = select_device(ctx);
    const std::string backend = distributed_backend(device);
#if !defined(BENCH_TORCH_WITH_CUDA)
    if (backend == "nccl") ctx.skip("a process group on CUDA needs NCCL, and this build of the SDK has no CUDA");
#endif
    const int my_rank = rank(), size = world_size();
    write_progress(s, progress_rendezvous, "in the process group's rendezvous (c10d::TCPStore)");
    const c10::intrusive_ptr<c10d::Store> store = rendezvous_store();
    auto group = c10::make_intrusive<c10d::ProcessGroup>(store, my_rank, size);
    if (backend == "gloo") {
        auto gloo = c10::make_intrusive<c10d::ProcessGroupGloo>(store, my_rank, size,
                                                                c10d::ProcessGroupGloo::Options::create_default());
        group->setBackend(c10::DeviceType::CPU, c10d::ProcessGroup::BackendType::GLOO, gloo);
        group->setDefaultBackend(c10d::ProcessGroup::BackendType::GLOO);
    } else {
#if defined(BENCH_TORCH_WITH_CUDA)
        const int gpu = device.has_index() ? device.index() : local_rank();
        group->setBackend(c10::DeviceType::CUDA, c10d::ProcessGroup::BackendType::NCCL,
                          make_nccl_backend(store, my_rank, size, gpu));
        group->setDefaultBackend(c10d::ProcessGroup::BackendType::NCCL);
#endif
    }
    group->setGroupName("0");  // the default group's name, as torch.distributed gives it
    s.group = group;
    s.backend = backend;
    s.device = device;
    write_progress(s, progress_ready, "the process group (" + backend + ") was ready");
    ctx.set_info("backend", backend);
    ctx.set_info("world_size", std::to_string(size));
    return group;
}

void barrier(Context& ctx) {
    const c10::intrusive_ptr<c10d::ProcessGroup> group = process_group(ctx);
    c10d::BarrierOptions options;
    if (state().backend == "nccl") options.device_ids = {local_rank()};
    group->barrier(options)->wait();
}

void before_rank_sample(Context& ctx) {
    RankState& s = state();
    const long long sample = ++s.samples;
    write_progress(s, progress_ready + 2 * sample - 1, "waiting at sample " + std::to_string(sample) + "'s barrier");
    barrier(ctx);
    write_progress(s, progress_ready + 2 * sample, "timing sample " + std::to_string(sample) + " (past its barrier)");
}

namespace {

// What Context::measure does in a distributed scenario, through these hooks, registered
// when the layer is loaded (and unregistered when it is unloaded): the group made ready,
// the barrier before each sample, a synchronization of the group's device after each
// call; and the progress file says when the benchmark started and ended, as
// benchhost.distributed's does.
const RankHooks libtorch_rank_hooks{
    .ready = [](Context& ctx) { process_group(ctx); },
    .before_sample = before_rank_sample,
    .after_call =
        [](Context&) {
            const torch::Device& device = state().device;
            if (!device.is_cpu()) synchronize(device);
        },
    .started =
        [](Context&) {
            RankState& s = state();
            s.samples = 0;
            write_progress(s, progress_started, "running the benchmark (before its process group's rendezvous)");
        },
    .ended =
        [](Context&, bool succeeded) {
            write_progress(state(), progress_finished,
                           succeeded ? "done with the benchmark" : "done with the benchmark, which raised an error");
        },
};

struct RankHooksRegistration {
    RankHooksRegistration() { set_rank_hooks(&libtorch_rank_hooks); }
    ~RankHooksRegistration() {
        if (rank_hooks() == &libtorch_rank_hooks) set_rank_hooks(nullptr);
    }
};
const RankHooksRegistration registration;

}  // namespace

bool rank_hooks_registered() { return rank_hooks() == &libtorch_rank_hooks; }

}  // namespace bench::libtorch
