#include "cli/merge_options.hpp"

#include <memory>
#include <string>

#include <CLI/CLI.hpp>

namespace benchhost {

namespace {

/// The arguments of `merge` as given.
struct MergeArguments {
    std::string out;
    std::vector<std::string> shards;
};

}  // namespace

Subcommand<MergeCommand> add_merge_command(CLI::App& app) {
    auto given = std::make_shared<MergeArguments>();
    CLI::App* merge =
        app.add_subcommand("merge", "Join the run folders of the shards of one plan (run --shard K/N) into one");
    merge->add_option("out", given->out, "The merged run folder to write")->required();
    merge->add_option("shards", given->shards, "The shards' run folders (or their benchmark_summary.json)")
        ->required()
        ->check(CLI::ExistingPath);
    return {merge, [given] { return MergeCommand{given->out, {given->shards.begin(), given->shards.end()}}; }};
}

}  // namespace benchhost
