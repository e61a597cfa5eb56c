// Words joined into one string, for messages and descriptions.
#pragma once

#include <string>
#include <vector>

namespace benchhost {

/// `items` with `separator` between them: join({"eager", "compiled"}) is "eager,compiled".
inline std::string join(const std::vector<std::string>& items, const std::string& separator = ",") {
    std::string out;
    for (const std::string& item : items) out += (out.empty() ? "" : separator) + item;
    return out;
}

/// The same, leaving out the empty items: join_nonempty({"Release", "", "GCC"}, ", ") is
/// "Release, GCC".
inline std::string join_nonempty(const std::vector<std::string>& items, const std::string& separator = ",") {
    std::string out;
    for (const std::string& item : items)
        if (!item.empty()) out += (out.empty() ? "" : separator) + item;
    return out;
}

}  // namespace benchhost
