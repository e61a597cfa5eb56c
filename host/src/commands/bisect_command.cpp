#include "commands/bisect_command.hpp"

#include <cstdlib>
#include <iostream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "bisect/bisect_search.hpp"
#include "bisect/build_revision.hpp"
#include "bisect/git_repository.hpp"
#include "commands/ab_command.hpp"
#include "commands/run_setup.hpp"
#include "execute/executor.hpp"
#include "report/comparison_reporter.hpp"
#include "report/markdown/markdown_text.hpp"
#include "util/atomic_file.hpp"
#include "util/scratch_folder.hpp"

namespace benchhost {

namespace fs = std::filesystem;

namespace {

/// What one step found, for the console and bisect.md.
struct Step {
    std::string label;  // "good", "bad", "step 3"
    Revision revision;
    std::string verdict;  // "good", "bad", "skipped", or for --good "built"
    std::string evidence;  // the evidence line or why it was skipped
    fs::path ab_folder, build_log;
};

/// Everything a bisect run learns, as it goes.
struct Bisection {
    Revision good, bad;
    std::vector<Revision> revisions;  // after good, up to bad
    std::vector<SlowSeries> slow;
    std::vector<Step> steps;
    std::string outcome;  // the last line: the first bad commit, or why there is none
};

std::string describe(const Revision& revision) { return revision.short_sha + " " + revision.subject; }

std::string slow_text(const std::vector<SlowSeries>& slow) {
    std::string text;
    for (const SlowSeries& s : slow) text += (text.empty() ? "" : ", ") + s.scenario_id + " " + s.series;
    return text;
}

/// bisect.md: the outcome, what was bisected, and every step with its evidence.
std::string bisect_markdown(const Bisection& b, const BisectCommand& command, const fs::path& output_dir) {
    std::ostringstream md;
    md << "# benchhost bisect\n\n";
    std::istringstream outcome(b.outcome);
    for (std::string line; std::getline(outcome, line);) md << md_text(line) << "\n\n";
    md << "- good: " << md_code(b.good.sha) << " " << md_text(b.good.subject) << "\n";
    md << "- bad: " << md_code(b.bad.sha) << " " << md_text(b.bad.subject) << "\n";
    md << "- revisions between them (first parents): " << b.revisions.size() << "\n";
    md << "- build: " << md_code(command.build) << ", plugins in "
       << md_code(PluginFolders{command.plugins_dirs, ""}.text()) << "\n";
    if (!b.slow.empty()) md << "- slower at bad, the series bisected: " << md_text(slow_text(b.slow)) << "\n";
    md << "\n| step | revision | subject | verdict | evidence | A/B run | build log |\n";
    md << "|---|---|---|---|---|---|---|\n";
    for (const Step& step : b.steps) {
        const auto link = [&](const fs::path& path, const char* text) {
            return path.empty() ? std::string("-")
                                : "[" + std::string(text) + "](" + path.lexically_relative(output_dir).string() + ")";
        };
        md << "| " << step.label << " | " << md_code(step.revision.short_sha) << " | " << md_text(step.revision.subject)
           << " | " << step.verdict << " | " << md_text(step.evidence.empty() ? "-" : step.evidence) << " | "
           << link(step.ab_folder.empty() ? fs::path() : step.ab_folder / "report.html", "report") << " | "
           << link(step.build_log, "log") << " |\n";
    }
    return md.str();
}

/// Runs --good's plugins against those in `plugins`, as `ab` does, into `folder`.
AbOutcome compare_with_good(const BisectCommand& command, const PluginFolders& good_plugins,
                            const PluginFolders& plugins, const fs::path& folder) {
    AbCommand ab = command.ab;
    ab.base_dirs = good_plugins;
    ab.new_dirs = plugins;
    ab.options.output_dir = folder;
    // One page for a CI job's summary would be one per step: not written here.
    std::erase(ab.options.extra_formats, std::string("summary-md"));
    return run_ab_command(ab);
}

}  // namespace

int bisect_command(const BisectCommand& command) {
    const std::time_t start_time = std::time(nullptr);
    const std::string timestamp = format_time(start_time, "%Y%m%d_%H%M%S", false);
    const RunOptions& options = command.ab.options;
    Bisection b;
    std::optional<GitRepository> repo;
    fs::path output_dir;
    try {
        repo.emplace(command.repo);
        b.good = repo->resolve(command.good, "--good");
        b.bad = repo->resolve(command.bad, "--bad");
        if (b.good.sha == b.bad.sha)
            throw BisectInputError("--good and --bad are the same commit, " + b.good.short_sha +
                                   ": nothing lies between");
        if (!repo->is_ancestor(b.good.sha, b.bad.sha))
            throw BisectInputError(repo->is_ancestor(b.bad.sha, b.good.sha)
                                       ? "--good " + command.good + " (" + b.good.short_sha + ") comes after --bad " +
                                             command.bad + " (" + b.bad.short_sha +
                                             "): give the older revision as --good"
                                       : "--good " + command.good + " (" + b.good.short_sha +
                                             ") is not an ancestor of --bad " + command.bad + " (" + b.bad.short_sha +
                                             "): bisect searches the commits from one to the other");
        if (const std::vector<std::string> changes = repo->uncommitted_changes(); !changes.empty()) {
            std::string list;
            for (std::size_t i = 0; i < changes.size() && i < 5; ++i) list += "\n  " + changes[i];
            if (changes.size() > 5) list += "\n  ... and " + std::to_string(changes.size() - 5) + " more";
            throw BisectInputError("the checkout " + repo->top().string() +
                                   " has uncommitted changes, which no revision bisected holds; commit or stash them "
                                   "first:" +
                                   list);
        }
        b.revisions = repo->revisions_between(b.good, b.bad);
        if (b.revisions.empty() || b.revisions.back().sha != b.bad.sha)
            throw BisectInputError("no commits from --good " + b.good.short_sha + " to --bad " + b.bad.short_sha +
                                   " along --bad's first parents");
        if (options.dry_run) {
            std::cout << "bisect: " << b.revisions.size() << " revision" << (b.revisions.size() == 1 ? "" : "s")
                      << " after good " << describe(b.good) << ", up to bad " << b.bad.short_sha << "; about "
                      << BisectSearch(b.revisions.size()).steps_left() << " steps after checking both ends\n";
            for (const Revision& revision : b.revisions) std::cout << "  " << describe(revision) << "\n";
            std::cout << "(dry run: nothing was built or run)\n";
            return 0;
        }
        output_dir = prepare_output_dir(options.output_dir, "bisect_" + timestamp);
        fs::create_directories(output_dir / "builds");
        fs::create_directories(output_dir / "steps");
    } catch (const std::exception& e) {
        std::cerr << "benchhost: error: " << e.what() << "\n";
        return 2;
    }

    const spdlog::sink_ptr console = make_console_sink(options.log_level, options.quiet, nullptr);
    const spdlog::sink_ptr file = make_log_file_sink(output_dir / "bisect.log", false);
    auto log = make_logger({console, file});
    // The verdict of each step goes to standard output, beside the steps' comparisons,
    // whatever the log level, and into the log.
    auto file_log = make_logger({file});
    const auto say = [&](const std::string& line) {
        std::cout << line << "\n" << std::flush;
        file_log->info("{}", line);
    };
    const double threshold = comparison_options(options).threshold;
    const auto write_report = [&] {
        try {
            write_file_atomically(output_dir / "bisect.md", bisect_markdown(b, command, output_dir));
        } catch (const std::exception& e) {
            log->error("{}", e.what());
        }
    };
    // Ends the bisection with `outcome` said on the console and in bisect.md.
    const auto finish = [&](int status, const std::string& outcome) {
        b.outcome = outcome;
        write_report();
        if (status == 0 || status == 1) say("\n" + outcome);
        else log->error("{}", outcome);
        log->info("bisect: {}", (output_dir / "bisect.md").string());
        return status;
    };

    install_interrupt_handlers();
    try {
        ScratchFolder scratch("benchhost-bisect-");
        if (command.keep_checkouts) scratch.keep();
        const fs::path good_checkout = scratch.path() / "good", checkout = scratch.path() / "revision";
        repo->scratch_clone(good_checkout);
        repo->scratch_clone(checkout);
        if (command.keep_checkouts) log->info("scratch checkouts (kept): {}", scratch.path().string());
        log->info("bisect: {} revisions after good {} up to bad {}; builds in {}", b.revisions.size(), describe(b.good),
                  describe(b.bad), scratch.path().string());

        // Builds `revision` in `folder`; the step's log name and, when it fails, why.
        const auto build = [&](const Revision& revision, const fs::path& folder, Step& step) -> std::string {
            checkout_revision(folder, revision.sha);
            step.build_log = output_dir / "builds" / (revision.short_sha + ".log");
            log->info("{} {}: building ({})", step.label, describe(revision), command.build);
            const BuildOutcome built = build_revision(command.build, folder, step.build_log, command.build_timeout_s,
                                                      [] { return interrupt_requested(); });
            if (built.stopped) return "interrupted";
            std::string problem;
            if (built.timed_out)
                problem = fmt::format("the build took over {:g} s and was killed", command.build_timeout_s);
            else if (!built.built)
                problem = built.exit_status < 0 ? fmt::format("the build was killed by signal {}", -built.exit_status)
                                                : fmt::format("the build failed (exit status {})", built.exit_status);
            for (const fs::path& plugins_dir : command.plugins_dirs)
                if (problem.empty() && !fs::is_directory(folder / plugins_dir))
                    problem = "the build made no plugin folder " + plugins_dir.string();
            if (problem.empty()) {
                log->info("{} {}: built in {:.1f} s", step.label, revision.short_sha, built.seconds);
            } else {
                problem += "; its log: " + step.build_log.string();
                log->warn("{} {}: {}{}{}", step.label, revision.short_sha, problem, built.tail.empty() ? "" : "\n",
                          built.tail);
            }
            return problem;
        };
        const auto interrupted = [&] { return finish(130, "interrupted: bisect.md holds the steps that ended"); };

        Step good_step{"good", b.good, "built", "", {}, {}};
        if (const std::string problem = build(b.good, good_checkout, good_step); !problem.empty()) {
            if (problem == "interrupted") return interrupted();
            b.steps.push_back(good_step);
            return finish(2, "cannot bisect: at --good " + describe(b.good) + ", " + problem);
        }
        b.steps.push_back(good_step);
        // The folders of --plugins-dir in each checkout.
        const auto in_checkout = [&](const fs::path& checkout_folder) {
            PluginFolders folders{{}, "--plugins-dir"};
            for (const fs::path& plugins_dir : command.plugins_dirs)
                folders.paths.push_back(checkout_folder / plugins_dir);
            return folders;
        };
        const PluginFolders good_plugins = in_checkout(good_checkout), plugins = in_checkout(checkout);

        // --bad against --good: what is slower is the regression bisected.
        Step bad_step{"bad", b.bad, "", "", {}, {}};
        if (const std::string problem = build(b.bad, checkout, bad_step); !problem.empty()) {
            if (problem == "interrupted") return interrupted();
            b.steps.push_back(bad_step);
            return finish(2, "cannot bisect: at --bad " + describe(b.bad) + ", " + problem);
        }
        bad_step.ab_folder = output_dir / "steps" / ("0_bad_" + b.bad.short_sha);
        log->info("bad {}: running against good {}, in pairs", b.bad.short_sha, b.good.short_sha);
        const AbOutcome at_bad = compare_with_good(command, good_plugins, plugins, bad_step.ab_folder);
        if (at_bad.exit_status == 130 || interrupt_requested()) {
            b.steps.push_back(bad_step);
            return interrupted();
        }
        if (!at_bad.comparison || at_bad.comparison->rows.empty()) {
            bad_step.verdict = "not compared";
            b.steps.push_back(bad_step);
            return finish(2, "cannot bisect: the A/B run of --bad against --good compared nothing (see " +
                                 bad_step.ab_folder.string() + " and the lines above)");
        }
        const Comparison& at_bad_comparison = *at_bad.comparison;
        b.slow = slower_series(at_bad_comparison);
        if (b.slow.empty()) {
            std::string evidence;
            for (const SeriesComparison& row : at_bad_comparison.rows)
                if (row.verdict == Verdict::faster)
                    evidence += "\n  " + row.scenario_id + ": " + evidence_line(row, threshold);
            bad_step.verdict = evidence.empty() ? "not slower" : "faster";
            b.steps.push_back(bad_step);
            if (!evidence.empty())
                return finish(2, "cannot bisect: --good " + describe(b.good) + " is slower than --bad " +
                                     describe(b.bad) + " (were they swapped?):" + evidence);
            return finish(1, fmt::format("nothing to bisect: --bad {} is not slower than --good {} beyond the "
                                         "threshold of {:.3g}% ({} same, {} inconclusive; see {})",
                                         b.bad.short_sha, b.good.short_sha, threshold * 100,
                                         at_bad_comparison.count(Verdict::same),
                                         at_bad_comparison.count(Verdict::inconclusive), bad_step.ab_folder.string()));
        }
        const RevisionJudgement bad_judgement = judge_revision(at_bad_comparison, b.slow);
        bad_step.verdict = "bad";
        bad_step.evidence =
            bad_judgement.evidence->scenario_id + ": " + evidence_line(*bad_judgement.evidence, threshold);
        b.steps.push_back(bad_step);
        say(fmt::format("bad {}: slower, the regression bisected: {}", b.bad.short_sha, bad_step.evidence));

        BisectSearch search(b.revisions.size());
        std::map<std::size_t, std::size_t> step_of;  // revision index -> its step in b.steps
        step_of[b.revisions.size() - 1] = b.steps.size() - 1;
        Step step;  // the step being tried
        // A revision built, then run against --good.
        const auto try_revision = [&](std::size_t index, int number) {
            const Revision& revision = b.revisions[index];
            step = Step{"step " + std::to_string(number), revision, "", "", {}, {}};
            log->info("step {} ({} left at most): {} of {}, {}", number, search.steps_left(), index + 1,
                      b.revisions.size(), describe(revision));
            RevisionTrial trial;
            const std::string problem = build(revision, checkout, step);
            if (problem == "interrupted") {
                trial.interrupted = true;
            } else if (!problem.empty()) {
                trial.problem = "does not build: " + problem;
            } else {
                step.ab_folder = output_dir / "steps" / (std::to_string(number) + "_" + revision.short_sha);
                AbOutcome outcome = compare_with_good(command, good_plugins, plugins, step.ab_folder);
                if (outcome.exit_status == 130 || interrupt_requested()) {
                    b.steps.push_back(step);
                    trial.interrupted = true;
                }
                trial.comparison = std::move(outcome.comparison);
                trial.problem = "the A/B run compared nothing (see its folder)";
            }
            return trial;
        };
        // What the step's comparison decided, said and written to bisect.md.
        const auto step_done = [&](std::size_t index, int number, const RevisionJudgement& judgement) {
            step.evidence = judgement.reason;
            if (judgement.state != RevisionState::skipped && judgement.evidence != nullptr)
                step.evidence = judgement.evidence->scenario_id + ": " + evidence_line(*judgement.evidence, threshold);
            step.verdict = std::string(to_string(judgement.state));
            step_of[index] = b.steps.size();
            b.steps.push_back(step);
            say(fmt::format("step {}: {} {} is {}: {}", number, step.revision.short_sha, step.revision.subject,
                            step.verdict, step.evidence));
            write_report();
        };
        if (!run_bisect_steps(search, b.slow, try_revision, step_done)) return interrupted();

        const std::vector<std::size_t> candidates = search.candidates();
        if (candidates.size() == 1) {
            const Step& found = b.steps[step_of.at(candidates.front())];
            return finish(
                0, "first bad commit: " + found.revision.sha + " " + found.revision.subject + "\n  " + found.evidence);
        }
        std::string list;
        for (const std::size_t i : candidates)
            list += "\n  " + b.revisions[i].sha + " " + b.revisions[i].subject + " (" +
                    std::string(to_string(search.state(i))) + ")";
        return finish(1, "the first bad commit is one of these " + std::to_string(candidates.size()) +
                             " (the skipped ones could not be judged):" + list);
    } catch (const BisectInputError& e) {
        return finish(2, std::string("cannot bisect: ") + e.what());
    } catch (const std::exception& e) {
        return finish(1, std::string("bisect stopped: ") + e.what());
    }
}

}  // namespace benchhost
