// What Context::serve runs (serve.cpp): the load, then its figures recorded.
#pragma once

#include <optional>

#include <bench/context.hpp>

namespace bench::detail {

/// Context::serve, serve_batches, serve_steps; with --find-peak, the search (the
/// Context keeps it in the result).
std::optional<PeakSearch> run_load(Context& ctx, const ServeHandler& handler);
std::optional<PeakSearch> run_batches(Context& ctx, const BatchHandler& handler);
std::optional<PeakSearch> run_steps(Context& ctx, const StepHandler& handler);

}  // namespace bench::detail
