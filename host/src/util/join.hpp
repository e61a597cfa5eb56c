// Words joined into one string, for messages and descriptions, and a list given as one
// string split into its items (split), the inverse of join.
#pragma once

#include <string>
#include <vector>

namespace benchhost {

/// `items` with `separator` between each two, empty items included:
/// join({"eager", "compiled"}) is "eager,compiled", join({"", "x"}) is ",x".
inline std::string join(const std::vector<std::string>& items, const std::string& separator = ",") {
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i) out += (i == 0 ? "" : separator) + items[i];
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

/// The items of `text` between each `separator`, empty ones included, in order:
/// split("eager,,compiled") is {"eager", "", "compiled"}, split("") is {""}.
inline std::vector<std::string> split(const std::string& text, char separator = ',') {
    std::vector<std::string> items;
    for (std::size_t start = 0;;) {
        const std::size_t end = text.find(separator, start);
        items.push_back(text.substr(start, end - start));
        if (end == std::string::npos) return items;
        start = end + 1;
    }
}

}  // namespace benchhost
