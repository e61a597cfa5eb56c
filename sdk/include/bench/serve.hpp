// Serving: a benchmark hands its request handler to bench::Context::serve, and the SDK
// drives it, inside the worker, with the load the run asks for (--load: single-stream,
// multi-stream, server, offline; <bench/load.hpp>). The handler takes one query and
// returns when the query is complete; a generative handler calls Query::token() as each
// token is ready. docs/serving.md tells the modes and the figures recorded.
//
//   ctx.serve([&](bench::Query& query) {
//       model.prefill(inputs[query.index() % inputs.size()]);
//       for (int t = 0; t < tokens; ++t) {
//           model.decode();
//           query.token();
//       }
//   });
//
// Batching (ABI 2.6): Context::serve_batches hands the handler the queries waiting, up
// to --max-batch of them (dynamic batching: each query completes when the handler
// returns); Context::serve_steps calls it once per step with the queries active in the
// batch (continuous batching: a query that arrives joins at the next step, one that the
// handler finishes leaves after it).
//
//   ctx.serve_steps([&](bench::QueryBatch active) {
//       for (bench::Query* q : active)
//           if (q->steps() == 0) model.prefill(q->slot(), prompt_of(q->index()));
//       model.decode(active);                     // one token for each, each in its slot
//       for (bench::Query* q : active) {
//           q->token();
//           if (q->tokens() == tokens) q->finish();
//       }
//   });
#pragma once

#include <functional>
#include <span>
#include <vector>

#include <bench/clock.hpp>
#include <bench/export.hpp>

namespace bench {

/// One query, as the handler sees it.
class BENCH_EXPORT Query {
public:
    Query(long long index, int samples, std::vector<Clock::time_point>* token_times, int slot = 0)
        : index_(index), samples_(samples), token_times_(token_times), slot_(slot) {}

    /// Which query, from 0: a handler picks its input by it (e.g. index % inputs).
    long long index() const { return index_; }
    /// Samples in the query: 1, or --samples-per-query in multi-stream.
    int samples() const { return samples_; }
    /// A token is ready: the time to first token, time per output token and the
    /// inter-token latency are measured from these calls.
    void token();
    /// Tokens reported so far.
    long long tokens() const;

    // (Added in ABI 2.6, after the members older plugins know.)
    /// Context::serve_steps: the query's slot, from 0 to --max-batch - 1, its own from
    /// the step it joins to the step it finishes (e.g. its row of a KV cache).
    /// Context::serve_batches: its place in the batch. Context::serve: 0.
    int slot() const { return slot_; }
    /// Context::serve_steps: the steps it was in before this one; 0 in the step it
    /// joins (the step that prefills it).
    long long steps() const { return steps_; }
    /// Context::serve_steps: the query is complete; it leaves the batch at the end of
    /// this step, and completes then.
    void finish() { finished_ = true; }
    bool finished() const { return finished_; }

private:
    friend struct QueryProgress;  // the SDK's serving loop counts the steps
    long long index_;
    int samples_;
    std::vector<Clock::time_point>* token_times_;
    int slot_ = 0;
    long long steps_ = 0;
    bool finished_ = false;
};

/// Serves one query; returns when it is complete. It runs on one thread at a time (the
/// one that called Context::serve); an exception from it fails the scenario.
using ServeHandler = std::function<void(Query&)>;

/// The queries of a batch or a step, in the order they joined (ABI 2.6).
using QueryBatch = std::span<Query* const>;

/// Dynamic batching (Context::serve_batches): serves a batch of 1 to --max-batch
/// queries together; each completes when it returns.
using BatchHandler = std::function<void(QueryBatch batch)>;

/// Continuous batching (Context::serve_steps): one step of every active query (a
/// generative model: one token each); Query::finish() on those that are complete.
using StepHandler = std::function<void(QueryBatch active)>;

}  // namespace bench
