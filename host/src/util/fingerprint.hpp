// A short, stable fingerprint of a text: 64-bit FNV-1a as 16 hex digits. For naming
// what must be recognised again (a plan's scenarios, a machine, a run), not for
// security.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace benchhost {

inline std::string fingerprint(std::string_view text) {
    std::uint64_t hash = 0xcbf29ce484222325ULL;
    for (const unsigned char c : text) {
        hash ^= c;
        hash *= 0x100000001b3ULL;
    }
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
    return hex;
}

}  // namespace benchhost
