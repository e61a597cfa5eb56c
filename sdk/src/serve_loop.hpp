// What Context::serve runs (serve.cpp): the load, then its figures recorded.
#pragma once

#include <optional>

#include <bench/context.hpp>

namespace bench::detail {

/// With --find-peak, the search (Context::serve keeps it in the result).
std::optional<PeakSearch> run_load(Context& ctx, const ServeHandler& handler);

}  // namespace bench::detail
