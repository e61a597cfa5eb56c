// A list of the values seen, each once, in the order of their first appearance: the
// variants of a chart's legend, the columns of the CSV, the collectives of a run.
#pragma once

#include <algorithm>
#include <utility>
#include <vector>

namespace benchhost {

/// Appends `item` to `items` unless it is there already; true when appended.
template <typename T, typename U>
bool append_unique(std::vector<T>& items, U&& item) {
    if (std::find(items.begin(), items.end(), item) != items.end()) return false;
    items.push_back(std::forward<U>(item));
    return true;
}

}  // namespace benchhost
