#include "util/units.hpp"

#include <cmath>

namespace benchhost {

double to_ms_factor(std::string_view unit) {
    if (unit == "ms") return 1.0;
    if (unit == "s") return 1e3;
    if (unit == "us" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs") return 1e-3;
    if (unit == "ns") return 1e-6;
    return std::nan("");
}

double to_mib_factor(std::string_view unit) {
    if (unit == "MiB" || unit == "MB") return 1.0;
    if (unit == "GiB" || unit == "GB") return 1024.0;
    if (unit == "KiB" || unit == "kB" || unit == "KB") return 1.0 / 1024.0;
    if (unit == "B" || unit == "bytes") return 1.0 / (1024.0 * 1024.0);
    return std::nan("");
}

}  // namespace benchhost
