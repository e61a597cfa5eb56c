// The git side of `benchhost bisect`: reads the user's repository, and checks revisions
// out in scratch clones of it (git clone --shared), so that the user's own checkout,
// its branches and its worktree list stay exactly as they were.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace benchhost {

/// Input that bisect cannot work with (no repository, a revision that does not exist, a
/// dirty checkout, ...): the command exits 2, having run nothing.
class BisectInputError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct Revision {
    std::string sha;  // the full commit id
    std::string short_sha;  // as git abbreviates it
    std::string subject;  // the first line of its message
};

/// A git checkout, read through the `git` command.
class GitRepository {
public:
    /// The checkout that holds `path`; BisectInputError when there is none, or no git.
    explicit GitRepository(const std::filesystem::path& path);

    /// The top folder of the checkout.
    const std::filesystem::path& top() const { return top_; }

    /// The commit `revision` names; BisectInputError naming `option` when it names none.
    Revision resolve(const std::string& revision, const std::string& option) const;

    /// Whether `ancestor` is an ancestor of `descendant` (or the same commit).
    bool is_ancestor(const std::string& ancestor, const std::string& descendant) const;

    /// Tracked files that differ from HEAD, staged or not, as `git status --short` lists them.
    std::vector<std::string> uncommitted_changes() const;

    /// The commits after `good` up to and including `bad`, oldest first, along bad's
    /// first parents (a merged branch counts as its merge commit).
    std::vector<Revision> revisions_between(const Revision& good, const Revision& bad) const;

    /// Clones the repository into `folder` without checking anything out, sharing its
    /// objects: the user's repository is read, never written.
    void scratch_clone(const std::filesystem::path& folder) const;

private:
    std::filesystem::path top_;
};

/// Checks `sha` out in the scratch clone `folder`, discarding changes to tracked files
/// and untracked files that git does not ignore; ignored files (a build folder) stay, so
/// that the next build can be incremental.
void checkout_revision(const std::filesystem::path& folder, const std::string& sha);

}  // namespace benchhost
