// A run's id: 32 lower-case hex digits (128 bits), made once when the run starts and kept
// by everything that is the same run (a resumed run, a copy of its folder), so that the
// history can tell two runs apart however alike their start and figures are.
#pragma once

#include <cstdio>
#include <random>
#include <string>
#include <string_view>

#include "util/fingerprint.hpp"

namespace benchhost {

/// 128 bits from std::random_device: with libstdc++ on Linux, the kernel's generator
/// (getrandom), so that runs started in the same second on machines cloned from one image
/// still differ, which a generator seeded by the clock or the pid would not promise.
inline std::string random_run_id() {
    std::random_device device;
    std::string id;
    char word[9];
    for (int i = 0; i < 4; ++i) {
        std::snprintf(word, sizeof word, "%08x", static_cast<unsigned>(device() & 0xffffffffU));
        id += word;
    }
    return id;
}

/// An id made from `text`, 32 hex digits, the same for the same text: for a run whose id
/// follows from others (a merged run, from its shards'). Two 64-bit fingerprints, of the
/// text and of the text reversed, so that texts that differ anywhere differ in both
/// halves; for naming, not for security.
inline std::string run_id_from(std::string_view text) {
    const std::string reversed(text.rbegin(), text.rend());
    return fingerprint(text) + fingerprint(reversed);
}

}  // namespace benchhost
