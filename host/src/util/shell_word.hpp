// Text as one word of a POSIX shell command line, for command lines that a reader copies
// (the run's own, in its reports; the bisect command of a history's step).
#pragma once

#include <algorithm>
#include <cctype>
#include <cstring>
#include <string>

namespace benchhost {

/// `text` as one word for a POSIX shell: as it is when it is safe, else in single quotes.
inline std::string shell_word(const std::string& text) {
    const bool safe = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("_-./=,:+@%", c) != nullptr;
    });
    if (safe) return text;
    std::string out = "'";
    for (const char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

}  // namespace benchhost
