#include <bench/result.hpp>

#include <algorithm>

namespace bench {

std::string_view to_string(Status status) {
    switch (status) {
        case Status::success:
            return "success";
        case Status::skipped:
            return "skipped";
        case Status::failed:
            return "failed";
        case Status::crashed:
            return "crashed";
        case Status::timed_out:
            return "timed_out";
        case Status::exited:
            return "exited";
        case Status::rejected:
            return "rejected";
    }
    return "unknown";
}

std::optional<Status> parse_status(std::string_view text) {
    for (Status s : {Status::success, Status::skipped, Status::failed, Status::crashed, Status::timed_out,
                     Status::exited, Status::rejected})
        if (text == to_string(s)) return s;
    return std::nullopt;
}

const Series* ScenarioResult::find_series(std::string_view name) const {
    auto it = std::find_if(series.begin(), series.end(), [&](const Series& s) { return s.name == name; });
    return it == series.end() ? nullptr : &*it;
}

const Scalar* ScenarioResult::find_scalar(std::string_view name) const {
    auto it = std::find_if(scalars.begin(), scalars.end(), [&](const Scalar& s) { return s.name == name; });
    return it == scalars.end() ? nullptr : &*it;
}

}  // namespace bench
