#include "bisect/git_repository.hpp"

#include <future>
#include <sstream>

#include <boost/asio/io_context.hpp>
#include <boost/process/args.hpp>
#include <boost/process/async.hpp>
#include <boost/process/child.hpp>
#include <boost/process/env.hpp>
#include <boost/process/exe.hpp>
#include <boost/process/io.hpp>
#include <boost/process/search_path.hpp>

namespace benchhost {

namespace fs = std::filesystem;
namespace bp = boost::process;

namespace {

struct GitResult {
    int status = -1;
    std::string out, err;
};

/// Runs `git -C folder args...`, its output captured. GIT_DIR and the variables like it
/// (set when bisect runs from a git hook) would point git elsewhere than `folder`: they
/// are removed.
GitResult run_git(const fs::path& folder, const std::vector<std::string>& args) {
    const fs::path git = bp::search_path("git").string();
    if (git.empty()) throw BisectInputError("git is not installed (bisect reads the repository with it)");
    std::vector<std::string> argv{"-C", folder.string()};
    argv.insert(argv.end(), args.begin(), args.end());
    boost::asio::io_context io;
    std::future<std::string> out, err;
    bp::environment env = boost::this_process::environment();
    for (const char* name : {"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR"})
        env.erase(name);
    std::error_code ec;
    bp::child child(bp::exe = git.string(), bp::args = argv, bp::env = env, bp::std_in<bp::null, bp::std_out> out,
                    bp::std_err > err, io, ec);
    if (ec) throw std::runtime_error("cannot start git: " + ec.message());
    io.run();
    child.wait();
    return GitResult{child.exit_code(), out.get(), err.get()};
}

std::string trimmed(std::string text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    return text;
}

/// The output of a git command that must succeed; else a runtime_error with git's words.
std::string git_output(const fs::path& folder, const std::vector<std::string>& args) {
    GitResult result = run_git(folder, args);
    if (result.status != 0) {
        std::string command = "git";
        for (const std::string& arg : args) command += " " + arg;
        throw std::runtime_error(command + " in " + folder.string() + " failed (exit status " +
                                 std::to_string(result.status) + "): " + trimmed(result.err));
    }
    return result.out;
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        if (!line.empty()) lines.push_back(line);
    return lines;
}

/// A line of `git log --format=%H%x09%h%x09%s`.
Revision revision_of(const std::string& line) {
    Revision revision;
    const auto first = line.find('\t');
    const auto second = line.find('\t', first + 1);
    revision.sha = line.substr(0, first);
    revision.short_sha = line.substr(first + 1, second - first - 1);
    revision.subject = second == std::string::npos ? "" : line.substr(second + 1);
    return revision;
}

}  // namespace

GitRepository::GitRepository(const fs::path& path) {
    std::error_code ec;
    if (!fs::is_directory(path, ec)) throw BisectInputError("--repo " + path.string() + ": no such folder");
    const GitResult result = run_git(path, {"rev-parse", "--show-toplevel"});
    if (result.status != 0)
        throw BisectInputError("--repo " + path.string() + " is not in a git checkout: " + trimmed(result.err));
    top_ = trimmed(result.out);
}

Revision GitRepository::resolve(const std::string& revision, const std::string& option) const {
    if (revision.empty() || revision.front() == '-')
        throw BisectInputError(option + " '" + revision + "': not a revision");
    const GitResult result =
        run_git(top_, {"rev-parse", "--verify", "--quiet", "--end-of-options", revision + "^{commit}"});
    if (result.status != 0) throw BisectInputError(option + " " + revision + ": no such commit in " + top_.string());
    const std::string sha = trimmed(result.out);
    const std::vector<std::string> line =
        lines_of(git_output(top_, {"log", "-1", "--format=%H%x09%h%x09%s", sha, "--"}));
    if (line.empty()) throw BisectInputError(option + " " + revision + ": git shows no commit " + sha);
    return revision_of(line.front());
}

bool GitRepository::is_ancestor(const std::string& ancestor, const std::string& descendant) const {
    const GitResult result = run_git(top_, {"merge-base", "--is-ancestor", ancestor, descendant});
    if (result.status > 1) throw std::runtime_error("git merge-base failed: " + trimmed(result.err));
    return result.status == 0;
}

std::vector<std::string> GitRepository::uncommitted_changes() const {
    return lines_of(git_output(top_, {"status", "--porcelain", "--untracked-files=no"}));
}

std::vector<Revision> GitRepository::revisions_between(const Revision& good, const Revision& bad) const {
    std::vector<Revision> revisions;
    for (const std::string& line : lines_of(git_output(
             top_, {"log", "--first-parent", "--reverse", "--format=%H%x09%h%x09%s", bad.sha, "^" + good.sha, "--"})))
        revisions.push_back(revision_of(line));
    return revisions;
}

void GitRepository::scratch_clone(const fs::path& folder) const {
    git_output(folder.parent_path(),
               {"clone", "--quiet", "--shared", "--no-checkout", "--", top_.string(), folder.string()});
}

void checkout_revision(const fs::path& folder, const std::string& sha) {
    git_output(folder, {"checkout", "--quiet", "--force", "--detach", sha});
    git_output(folder, {"clean", "--quiet", "--force", "-d"});
}

}  // namespace benchhost
