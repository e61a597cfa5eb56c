// The patterns that pick scenarios and benchmarks by id: `--include` and `--exclude` of a
// plan, and the history's `--scenario`.
#pragma once

#include <fnmatch.h>

#include <string>
#include <string_view>

namespace benchhost {

/// A pattern matches an id it is a substring of, or, when it has *, ? or [, an id it
/// matches as a glob over the whole id. (A scenario id such as "b[variant=eager]" then
/// matches itself, although its brackets would make a glob of it.)
inline bool matches_pattern(std::string_view id, std::string_view pattern) {
    if (id.find(pattern) != std::string_view::npos) return true;  // a scenario's own id, brackets and all
    return pattern.find_first_of("*?[") != std::string_view::npos &&
           fnmatch(std::string(pattern).c_str(), std::string(id).c_str(), 0) == 0;
}

}  // namespace benchhost
