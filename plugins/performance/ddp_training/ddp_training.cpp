// ddp_training: data-parallel training steps of GPT-2 over the ranks of a distributed
// scenario, as PyTorch's DistributedDataParallel runs them.
//
// The model is the gpt2 plugin's (gpt2_model.hpp: HF's GPT2LMHeadModel written with
// torch::nn; --model-id gpt2-tiny, the default, 560,640 parameters, or gpt2, GPT-2 small's
// 124,439,808), seeded alike on every rank and then made rank 0's (a broadcast, as DDP
// syncs the module's state at construction). Each rank trains on its own shard: seeded
// sequences of prompt_tokens ids drawn from seed + rank, batch_size of them a step.
//
// A step is DDP's: forward, cross-entropy of every position against the next id,
// backward, during which c10d's Reducer all-reduces the gradients over the process group
// (<bench/torch/distributed.hpp>: gloo on the CPU, NCCL on CUDA) bucket by bucket as
// backward produces them, and averages them (the sum over world_size); then the
// optimizer's step. The buckets are DDP's defaults: one bucket for the first step, then
// rebuilt in the order backward produced the gradients, the first of 1 MiB and the others
// of bucket_mib.
//
// Measured (bench::libtorch::measure_ranks: a barrier before each sample, outside it):
// series "step" (ms, the slowest rank's sample by sample; each rank's as step.rank<N>)
// and "throughput" (samples/s: world_size x batch_size sequences over the step),
// scalars "samples_per_step" and "loss" (rank 0's last). The scaling efficiency at N
// ranks is the throughput at N over N times the throughput at 1 (docs/distributed.md).
//
// Checked after the timed steps: every rank's parameters are rank 0's, bit for bit (an
// all-reduce of the largest difference: scalar "parameter_difference_across_ranks",
// which must be 0, else the scenario fails), and they moved from where training began.
//
// Parameters (--param):
//   prompt_tokens  the length of a sequence (default 32)
//   seed           seed of the weights and the data (default 42)
//   optimizer      sgd (the default) or adamw (bench/torch/training.hpp); also an axis
//   bucket_mib     the Reducer's bucket size after the first step, MiB (default 25)
#include <bench/plugin.hpp>
#include <bench/torch/device.hpp>
#include <bench/torch/distributed.hpp>
#include <bench/torch/model_benchmark.hpp>
#include <bench/torch/training.hpp>

#include <torch/types.h>
#include <torch/version.h>
#include <torch/csrc/distributed/c10d/reducer.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "../gpt2/gpt2_model.hpp"

BENCH_PLUGIN("ddp_training", "1.0.0", .axes = "world_size,batch_size,device,threads,optimizer",
             .variants = bench::eager_bit);

namespace {

namespace lt = bench::libtorch;
using torch::Tensor;

/// Every parameter, flattened into one tensor, in the module's order.
Tensor flat(const std::vector<Tensor>& parameters) {
    std::vector<Tensor> views;
    views.reserve(parameters.size());
    for (const Tensor& p : parameters) views.push_back(p.detach().reshape({-1}));
    return torch::cat(views);
}

/// Rank 0's parameters on every rank: one broadcast of them all, copied back.
void broadcast_parameters(c10d::ProcessGroup& group, const std::vector<Tensor>& parameters) {
    std::vector<Tensor> buffer{flat(parameters)};
    group.broadcast(buffer)->wait();
    const torch::NoGradGuard no_grad;
    int64_t offset = 0;
    for (const Tensor& p : parameters) {
        p.copy_(buffer[0].narrow(0, offset, p.numel()).view_as(p));
        offset += p.numel();
    }
}

/// The largest difference between this rank's parameters and rank 0's, the largest over
/// the ranks (every rank gets the same figure).
double difference_across_ranks(c10d::ProcessGroup& group, const std::vector<Tensor>& parameters) {
    const Tensor mine = flat(parameters);
    std::vector<Tensor> reference{mine.clone()};
    group.broadcast(reference)->wait();
    std::vector<Tensor> largest{(mine - reference[0]).abs().max().to(torch::kFloat64).reshape({1})};
    c10d::AllreduceOptions options;
    options.reduceOp = c10d::ReduceOp::MAX;
    group.allreduce(largest, options)->wait();
    return largest[0].item<double>();
}

/// c10d's Reducer as DistributedDataParallel makes it (without unused parameters): every
/// parameter in one bucket until the first backward, then buckets rebuilt in the order
/// that backward produced the gradients (rebuild_buckets before the next forward), the
/// first of DDP's 1 MiB and the others of `bucket_bytes`.
std::unique_ptr<c10d::Reducer> make_reducer(const std::vector<Tensor>& parameters,
                                            const c10::intrusive_ptr<c10d::ProcessGroup>& group, int64_t bucket_bytes) {
    const std::vector<bool> sparse(parameters.size(), false);
    const std::vector<size_t> one_bucket{std::numeric_limits<size_t>::max()};
    auto [buckets, limits] = c10d::compute_bucket_assignment_by_size(parameters, one_bucket, sparse);
    constexpr int64_t first_bucket_bytes = 1024 * 1024;  // torch.distributed's _DEFAULT_FIRST_BUCKET_BYTES
    return std::make_unique<c10d::Reducer>(parameters, std::move(buckets), group, sparse, bucket_bytes,
                                           /*find_unused_parameters=*/false, /*gradient_as_bucket_view=*/false,
                                           std::unordered_map<size_t, std::string>{}, first_bucket_bytes,
                                           /*skip_all_reduce_unused_params=*/false, /*use_python_reducer=*/false,
                                           /*bucket_bytes_cap_list=*/std::vector<int64_t>{});
}

}  // namespace

BENCH_RUN_BENCHMARK(ctx) {
    using namespace gpt2_model;
    const bench::ScenarioConfig& config = ctx.config();
    const Gpt2Config& arch = find_model(config.model_id);
    const int64_t tokens = ctx.params().get_int("prompt_tokens", 32);
    if (tokens < 1 || tokens > arch.n_ctx)
        throw std::invalid_argument("ddp_training: prompt_tokens must be 1 to " + std::to_string(arch.n_ctx) + " (" +
                                    std::string(arch.id) + "'s context), not " + std::to_string(tokens));
    const int64_t bucket_mib = ctx.params().get_int("bucket_mib", 25);
    if (bucket_mib < 1)
        throw std::invalid_argument("ddp_training: bucket_mib must be at least 1, not " + std::to_string(bucket_mib));
    if (config.batch_size < 1)
        throw std::invalid_argument("ddp_training: batch_size must be at least 1, not " +
                                    std::to_string(config.batch_size));
    const auto seed = static_cast<uint64_t>(ctx.params().get_int("seed", 42));
    const std::string optimizer_name = ctx.params().get_string("optimizer", "sgd");

    const lt::ThreadScope threads(ctx);
    const torch::Device device = lt::select_device(ctx);
    const int rank = lt::rank(), world = config.world_size > 0 ? lt::world_size() : 1;
    const c10::intrusive_ptr<c10d::ProcessGroup> group = lt::process_group(ctx);
    ctx.set_info("model", "gpt2 " + std::string(arch.id));
    ctx.set_info("framework", "libtorch");
    ctx.set_info("torch_version", TORCH_VERSION);
    ctx.set_info("sequence_tokens", std::to_string(tokens));
    ctx.set_info("gradient_reduction", "c10d::Reducer, buckets of " + std::to_string(bucket_mib) +
                                           " MiB (the first 1 MiB) after the first step, averaged over the ranks");

    Gpt2 model = lt::load_model(ctx, [&arch, seed] {
        Gpt2 built(arch);
        init_weights(*built, arch, seed);
        return built;
    });
    model->to(device);
    model->train();
    std::vector<Tensor> parameters = model->parameters();
    for (Tensor& p : parameters) p.set_requires_grad(true);
    lt::record_parameters(ctx, *model, "gpt2 " + std::string(arch.id), parameter_count(arch));
    broadcast_parameters(*group, parameters);
    const Tensor initial = flat(parameters).clone();

    // This rank's shard: its own seed.
    const Tensor ids = training_ids(arch, config.batch_size, tokens, seed + static_cast<uint64_t>(rank)).to(device);
    const Tensor input = ids.narrow(1, 0, tokens).contiguous();
    const Tensor targets = ids.narrow(1, 1, tokens).reshape({-1});

    std::unique_ptr<c10d::Reducer> reducer = make_reducer(parameters, group, bucket_mib * 1024 * 1024);
    std::unique_ptr<torch::optim::Optimizer> optimizer = lt::make_optimizer(optimizer_name, parameters);
    Tensor loss;
    const auto step = [&] {
        reducer->rebuild_buckets();  // after the first backward only: DDP's forward does so
        reducer->prepare_for_forward();
        const Tensor logits = logits_of_every_position(*model, arch, input);
        loss = at::cross_entropy_loss(logits, targets);
        reducer->prepare_for_backward({});
        loss.backward();  // the Reducer's hooks all-reduce the gradients as they come
        optimizer->step();
        optimizer->zero_grad(/*set_to_none=*/false);
    };

    const bench::Series steps = lt::measure_ranks(ctx, "step", step);
    const auto samples_per_step = static_cast<double>(world * config.batch_size);
    ctx.record_throughput("throughput", steps, samples_per_step, "samples/s");
    ctx.record_scalar("samples_per_step", samples_per_step, "samples");
    const double last_loss = loss.item<double>();
    if (!std::isfinite(last_loss))
        throw std::runtime_error("ddp_training: the loss is not finite: " + std::to_string(last_loss));
    ctx.record_scalar("loss", last_loss, "");

    // Every rank holds rank 0's parameters, and training moved them.
    const double difference = difference_across_ranks(*group, parameters);
    ctx.record_scalar("parameter_difference_across_ranks", difference, "");
    if (difference != 0)
        throw std::runtime_error("ddp_training: after the timed steps rank " + std::to_string(rank) +
                                 "'s parameters are not rank 0's: the largest difference over the ranks is " +
                                 std::to_string(difference));
    if (torch::equal(flat(parameters), initial))
        throw std::runtime_error("ddp_training: the parameters did not move in training");
    lt::record_memory(ctx, device);
}
