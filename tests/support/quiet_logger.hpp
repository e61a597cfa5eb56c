// A logger that drops what it is given: for a Context whose log a test does not read.
#pragma once

#include <memory>

#include <spdlog/logger.h>
#include <spdlog/sinks/null_sink.h>

namespace benchtest {

/// A logger named "test" that writes nowhere.
inline std::shared_ptr<spdlog::logger> quiet_logger() {
    return std::make_shared<spdlog::logger>("test", std::make_shared<spdlog::sinks::null_sink_mt>());
}

}  // namespace benchtest
