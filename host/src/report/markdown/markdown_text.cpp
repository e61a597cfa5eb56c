#include "report/markdown/markdown_text.hpp"

#include "json/json_writer.hpp"

namespace benchhost {

std::string md_text(std::string_view text) {
    const std::string valid = valid_utf8(text);
    std::string out;
    out.reserve(valid.size());
    bool space = false;
    for (std::size_t i = 0; i < valid.size(); ++i) {
        const char c = valid[i];
        if (c == '\n' || c == '\r' || c == '\t') {
            space = true;
            continue;
        }
        if (space && !out.empty()) out += ' ';
        space = false;
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '|':
            case '\\':
            case '`':
            case '*':
                out += '\\';
                out += c;
                break;
            case ']':  // "](" and "][" would make a link
                if (i + 1 < valid.size() && (valid[i + 1] == '(' || valid[i + 1] == '[')) out += '\\';
                out += c;
                break;
            default:
                if (static_cast<unsigned char>(c) >= 0x20 && c != 0x7F) out += c;
        }
    }
    return out;
}

std::string md_code(std::string_view text) {
    std::string out = "`";
    for (const char c : valid_utf8(text)) {
        if (c == '`') out += '\'';
        else if (c == '|') out += "\\|";
        else if (c == '\n' || c == '\r' || c == '\t') out += ' ';
        else if (static_cast<unsigned char>(c) >= 0x20 && c != 0x7F) out += c;
    }
    return out + "`";
}

}  // namespace benchhost
