// The message of what a call throws, for tests of error messages.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>

namespace benchtest {

/// The what() of the std::runtime_error that `call` throws, or "(no error)".
inline std::string error_of(const std::function<void()>& call) {
    try {
        call();
    } catch (const std::runtime_error& e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace benchtest
