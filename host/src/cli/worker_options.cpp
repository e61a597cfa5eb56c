#include "cli/worker_options.hpp"

#include <memory>

#include <CLI/CLI.hpp>

#include "config/run_config.hpp"

namespace benchhost {

namespace {

/// The options of `worker` as given: the paths as text, the others in the command.
struct WorkerArguments {
    WorkerCommand command;
    std::string plugin, config, result, rank_dir;
};

}  // namespace

Subcommand<WorkerCommand> add_worker_command(CLI::App& app) {
    auto given = std::make_shared<WorkerArguments>();
    CLI::App* worker = app.add_subcommand("worker", "Internal: run one scenario (started by the host)");
    worker->group("");  // hidden from --help
    worker->add_option("--plugin", given->plugin)->required();
    worker->add_option("--symbol", given->command.symbol)->required();
    CLI::Option* rank_dir = worker->add_option("--rank-dir", given->rank_dir);
    worker->add_option("--config", given->config)->excludes(rank_dir);
    worker->add_option("--result", given->result)->excludes(rank_dir);
    worker->add_option("--log-level", given->command.log_level);
    worker->add_option("--monitor-interval", given->command.monitor_interval_ms)->check(CLI::NonNegativeNumber);
    return {worker, [given] {
                if (given->rank_dir.empty() && (given->config.empty() || given->result.empty()))
                    throw ConfigError("worker: --config and --result are required (or --rank-dir)");
                WorkerCommand command = given->command;
                command.plugin = given->plugin;
                command.config = given->config;
                command.result = given->result;
                command.rank_dir = given->rank_dir;
                return command;
            }};
}

}  // namespace benchhost
