// What a worker leaves running when it ends: processes the plugin started and did not
// stop (a server, a helper, a daemon), in whatever session or process group they put
// themselves. The worker server is the subreaper of its workers (PR_SET_CHILD_SUBREAPER),
// so every such process that lost its parent is now a child of the server, and every
// other one descends from such a child: what is left is the server's children that are
// not its own, and their descendants.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

#include "json/result_json.hpp"

namespace benchhost {

/// Stops every child of this process but those in `own`, and every descendant of those
/// children (what descends from `own` is left alone): SIGTERM, then SIGKILL to what is
/// still there after `grace`, looking again until none is left (a process may fork while
/// it is stopped) or `limit` has passed. Reaps those that are its children. Returns the
/// processes found running, in the order found; a fork of this process that executed no
/// other program is named "a fork of the worker".
std::vector<StoppedProcess> stop_leftover_processes(const std::vector<pid_t>& own,
                                                    std::chrono::milliseconds grace = std::chrono::milliseconds(200),
                                                    std::chrono::milliseconds limit = std::chrono::seconds(2));

/// The scenario's warning: "stopped 2 processes the scenario left running: sleep 987 (pid
/// 1234), sleep 987 (pid 1240)", the first five named, then "and N more".
std::string leftover_processes_warning(const std::vector<StoppedProcess>& processes);

}  // namespace benchhost
