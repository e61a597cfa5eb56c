// benchhost: cli/cli.hpp parses the command line; commands/ holds what each command does.
#include <variant>

#include "cli/cli.hpp"
#include "commands/ab_command.hpp"
#include "commands/bisect_command.hpp"
#include "commands/compare_command.hpp"
#include "commands/export_command.hpp"
#include "commands/history_command.hpp"
#include "commands/list_command.hpp"
#include "commands/merge_command.hpp"
#include "commands/report_command.hpp"
#include "commands/run_command.hpp"
#include "execute/slurm_ranks.hpp"
#include "execute/worker.hpp"
#include "execute/worker_server.hpp"

namespace {

/// Runs `command` with the worker server of process isolation when `needed`. The server
/// starts here, before the run has threads, and gets ready while the run discovers and
/// plans.
template <typename Command>
int with_worker_server(bool needed, Command&& command) {
    using namespace benchhost;
    if (needed) {
        try {
            start_worker_server();
        } catch (const std::exception&) {
            // The first scenario tries again, and reports why it cannot.
        }
    }
    const int status = command();
    stop_worker_server();
    return status;
}

}  // namespace

int main(int argc, char** argv) {
    using namespace benchhost;
    // This executable is also the worker server of process isolation (worker_server.hpp).
    if (const std::optional<int> status = run_worker_server_if_requested(argc, argv)) return *status;
    ParsedCommandLine parsed = parse_command_line(argc, argv);
    if (!parsed.command) return parsed.exit_code;
    return std::visit(
        [](auto& command) -> int {
            using T = std::decay_t<decltype(command)>;
            if constexpr (std::is_same_v<T, RunCommand>) {
                const RunOptions& options = command.options;
                return with_worker_server(options.isolation == Isolation::process && !options.dry_run,
                                          [&] { return run_command(command); });
            } else if constexpr (std::is_same_v<T, AbCommand>) {
                return with_worker_server(!command.options.dry_run, [&] { return ab_command(command); });
            } else if constexpr (std::is_same_v<T, BisectCommand>) {
                return with_worker_server(!command.ab.options.dry_run, [&] { return bisect_command(command); });
            } else if constexpr (std::is_same_v<T, ListCommand>) return list_command(command);
            else if constexpr (std::is_same_v<T, ExportCommand>) return export_command(command);
            else if constexpr (std::is_same_v<T, CompareCommand>) return compare_command(command);
            else if constexpr (std::is_same_v<T, MergeCommand>) return merge_command(command);
            else if constexpr (std::is_same_v<T, ReportCommand>) return report_command(command);
            else if constexpr (std::is_same_v<T, HistoryCommand>) return history_command(command);
            else if (!command.rank_dir.empty())
                return slurm_rank_main(command.plugin, command.symbol, command.rank_dir, command.log_level,
                                       command.monitor_interval_ms);
            else
                return worker_main(command.plugin, command.symbol, command.config, command.result, command.log_level,
                                   command.monitor_interval_ms);
        },
        *parsed.command);
}
