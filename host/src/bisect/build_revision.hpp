// The build of one revision in `benchhost bisect`: the user's build command, run by
// /bin/sh in the revision's scratch checkout, its output in a log file.
#pragma once

#include <filesystem>
#include <functional>
#include <string>

namespace benchhost {

struct BuildOutcome {
    bool built = false;  // the command exited 0
    int exit_status = 0;  // its exit status, or -N when signal N ended it
    bool timed_out = false, stopped = false;  // killed past the time limit, or because `stop` said so
    double seconds = 0;
    std::string tail;  // the last lines of its output, for the console
};

/// Runs `command` with /bin/sh -c in `folder`, standard output and error into `log_file`,
/// in a process group of its own; past `timeout_s` (0: no limit), or as soon as `stop`
/// returns true (the run was interrupted), the whole group is killed.
BuildOutcome build_revision(const std::string& command, const std::filesystem::path& folder,
                            const std::filesystem::path& log_file, double timeout_s, const std::function<bool()>& stop);

}  // namespace benchhost
