// A record of the machine and the build, read from /proc, uname and the compiler.
#pragma once

#include "run_record.hpp"

namespace benchhost {

/// Sections "cpu" (model, logical_cores, ...), "memory" (total_mib), "os" (name,
/// kernel), "build" (compiler, build_type, sdk_version). Reading never fails: a fact
/// that cannot be read is left out.
HardwareInfo collect_hardware_info();

}  // namespace benchhost
