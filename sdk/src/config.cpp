#include <bench/config.hpp>

namespace bench {

std::string_view to_string(Variant variant) {
    switch (variant) {
        case Variant::eager:
            return "eager";
        case Variant::compiled:
            return "compiled";
        case Variant::kernelized:
            return "kernelized";
    }
    return "unknown";
}

std::optional<Variant> parse_variant(std::string_view text) {
    for (Variant v : {Variant::eager, Variant::compiled, Variant::kernelized})
        if (text == to_string(v)) return v;
    return std::nullopt;
}

}  // namespace bench
