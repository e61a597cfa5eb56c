#include "json/json_writer.hpp"

#include <cmath>

namespace benchhost {

std::string valid_utf8(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
    std::size_t i = 0;
    while (i < text.size()) {
        const unsigned char lead = byte(i);
        std::size_t length = 0;
        unsigned char low = 0x80, high = 0xBF;  // allowed range of the second byte
        if (lead < 0x80) {
            length = 1;
        } else if (lead >= 0xC2 && lead <= 0xDF) {
            length = 2;
        } else if (lead >= 0xE0 && lead <= 0xEF) {
            length = 3;
            if (lead == 0xE0) low = 0xA0;
            if (lead == 0xED) high = 0x9F;
        } else if (lead >= 0xF0 && lead <= 0xF4) {
            length = 4;
            if (lead == 0xF0) low = 0x90;
            if (lead == 0xF4) high = 0x8F;
        }
        bool ok = length > 0 && i + length <= text.size();
        for (std::size_t k = 1; ok && k < length; ++k) {
            const unsigned char c = byte(i + k);
            ok = k == 1 ? (c >= low && c <= high) : (c >= 0x80 && c <= 0xBF);
        }
        if (ok) {
            out.append(text.substr(i, length));
            i += length;
        } else {
            out.append("\xEF\xBF\xBD");
            ++i;
        }
    }
    return out;
}

JsonOut::JsonOut(JsonFormat format) : format_(format) {
    if (format.layout == JsonFormat::Layout::pretty) {
        writer_.emplace<Pretty>(buffer_).SetIndent(' ', 2);
    } else {
        writer_.emplace<Compact>(buffer_);
    }
}

void JsonOut::key(std::string_view name) {
    const auto write = [&](std::string_view text) {
        visit([&](auto& w) { w.Key(text.data(), static_cast<rapidjson::SizeType>(text.size())); });
    };
    if (format_.values == JsonFormat::Values::exact) return write(name);
    write(valid_utf8(name));
}

void JsonOut::string(std::string_view value) {
    const auto write = [&](std::string_view text) {
        visit([&](auto& w) { w.String(text.data(), static_cast<rapidjson::SizeType>(text.size())); });
    };
    if (format_.values == JsonFormat::Values::exact) return write(value);
    write(valid_utf8(value));
}

void JsonOut::number(double value) {
    if (std::isfinite(value)) {
        visit([&](auto& w) { w.Double(value); });
    } else if (format_.values == JsonFormat::Values::strict) {
        null();
    } else {
        const std::string_view token = std::isnan(value) ? "NaN" : value > 0 ? "Infinity" : "-Infinity";
        visit([&](auto& w) { w.RawValue(token.data(), token.size(), rapidjson::kNumberType); });
    }
}

void JsonOut::numbers(const std::vector<double>& items) {
    start_array();
    for (const double item : items) number(item);
    end_array();
}

void JsonOut::strings(const std::vector<std::string>& items) {
    start_array();
    for (const auto& item : items) string(item);
    end_array();
}

void JsonOut::string_map(const std::map<std::string, std::string>& map) {
    start_object();
    for (const auto& [key, value] : map) field(key, value);
    end_object();
}

void JsonOut::interval(const bench::Interval& interval) {
    if (!interval.valid()) return null();
    start_array();
    number(interval.low);
    number(interval.high);
    end_array();
}

}  // namespace benchhost
