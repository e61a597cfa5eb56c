// `benchhost list`: the plugins of a folder, with their benchmarks, and every other file
// with why it is not a plugin.
#pragma once

#include "cli/list_options.hpp"

namespace benchhost {

/// Prints every plugin with its benchmarks, and every other file with why it is not a
/// plugin. Returns 0, or 2 when the folder cannot be read.
int list_command(const ListCommand& command);

}  // namespace benchhost
