// What Context::serve runs (serve.cpp): the load, then its figures recorded.
#pragma once

#include <bench/context.hpp>

namespace bench::detail {

void run_load(Context& ctx, const ServeHandler& handler);

}  // namespace bench::detail
