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
#pragma once

#include <functional>
#include <vector>

#include <bench/clock.hpp>
#include <bench/export.hpp>

namespace bench {

/// One query, as the handler sees it.
class BENCH_EXPORT Query {
public:
    Query(long long index, int samples, std::vector<Clock::time_point>* token_times)
        : index_(index), samples_(samples), token_times_(token_times) {}

    /// Which query, from 0: a handler picks its input by it (e.g. index % inputs).
    long long index() const { return index_; }
    /// Samples in the query: 1, or --samples-per-query in multi-stream.
    int samples() const { return samples_; }
    /// A token is ready: the time to first token, time per output token and the
    /// inter-token latency are measured from these calls.
    void token();
    /// Tokens reported so far.
    long long tokens() const;

private:
    long long index_;
    int samples_;
    std::vector<Clock::time_point>* token_times_;
};

/// Serves one query; returns when it is complete. It runs on one thread at a time (the
/// one that called Context::serve); an exception from it fails the scenario.
using ServeHandler = std::function<void(Query&)>;

}  // namespace bench
