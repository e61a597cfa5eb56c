// `benchhost ab --base DIR_A --new DIR_B`: the same plan over two plugin folders (a
// main-branch build and a pull request's, or one folder with a parameter changed on one
// side), run in A/B pairs (run/ab_loop.hpp), then compared pair by pair
// (analysis/compare.hpp, "pairs" evidence).
//
// The output folder holds a whole run folder for each side (base/ and new/: plugin
// reports, summary, CSV, log, report.md/html, journal), and the comparison:
// comparison.md, comparison.json and report.html (the verdicts and a chart of the
// ratios), plus the A/B run's own log.
#pragma once

#include <filesystem>
#include <optional>

#include "analysis/compare.hpp"
#include "cli/run_options.hpp"

namespace benchhost {

/// Returns the exit status: 0 every scenario succeeded on both sides (or was skipped)
/// and, with --fail-on-regression, none is slower; 1 otherwise (or a report could not
/// be written); 2 the invocation is wrong (nothing ran), the two sides are not the same
/// plugins; 130 interrupted.
int ab_command(const AbCommand& command);

/// What an A/B run ended with, for a command that runs several (bisect).
struct AbOutcome {
    int exit_status = 2;  // as ab_command's
    /// The comparison, once both sides ran (also when interrupted); empty when the run
    /// ended before it (bad input, an empty plan, a dry run).
    std::optional<Comparison> comparison;
    std::filesystem::path output_dir;  // empty when none was made
};

/// ab_command, returning the comparison beside the exit status.
AbOutcome run_ab_command(const AbCommand& command);

}  // namespace benchhost
