#include "cli/export_options.hpp"

#include <memory>

#include <CLI/CLI.hpp>

#include "report/reporter_registry.hpp"

namespace benchhost {

namespace {

/// The options of `export` as given.
struct ExportArguments {
    std::string source, format, output;
};

}  // namespace

Subcommand<ExportCommand> add_export_command(CLI::App& app) {
    auto given = std::make_shared<ExportArguments>();
    CLI::App* export_app = app.add_subcommand("export", "Write a run's results in a format other tools read");
    export_app->add_option("dir", given->source, "Run folder, or its benchmark_summary.json")->required();
    export_app->add_option("--format", given->format, "The format, one of run --format's: " + optional_formats_help())
        ->required()
        ->check(CLI::IsMember(optional_format_names()));
    export_app->add_option("--output,-o", given->output, "Write to this file instead of standard output");
    return {export_app, [given] { return ExportCommand{given->source, given->format, given->output}; }};
}

}  // namespace benchhost
