#include "run/journal.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <stdexcept>

#include "util/text_file.hpp"

namespace benchhost {

namespace fs = std::filesystem;

RunJournal::RunJournal(const fs::path& dir, const JournalHeader& header) : path_(dir / journal_file_name) {
    fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd_ < 0) throw std::runtime_error("cannot open " + path_.string() + ": " + std::strerror(errno));
    try {
        // A line cut short when an earlier run was killed is dropped, so that the journal
        // holds whole lines only.
        const off_t size = ::lseek(fd_, 0, SEEK_END);
        off_t keep = size;
        char byte = '\n';
        while (keep > 0 && ::pread(fd_, &byte, 1, keep - 1) == 1 && byte != '\n') --keep;
        if (keep != size && ::ftruncate(fd_, keep) != 0)
            throw std::runtime_error("cannot drop the unfinished last line of " + path_.string() + ": " +
                                     std::strerror(errno));
        write_line(journal_header_line(header));
    } catch (...) {
        ::close(fd_);
        throw;
    }
}

RunJournal::~RunJournal() {
    if (fd_ >= 0) ::close(fd_);
}

void RunJournal::append(const ScenarioOutcome& outcome, int round) { write_line(journal_outcome_line(outcome, round)); }

void RunJournal::write_line(const std::string& line) {
    const off_t before = ::lseek(fd_, 0, SEEK_END);
    std::size_t written = 0;
    while (written < line.size()) {
        const ssize_t n = ::write(fd_, line.data() + written, line.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            const int error = n < 0 ? errno : EIO;
            // Take back the part that was written, so that the journal stays whole lines.
            if (before >= 0) (void)::ftruncate(fd_, before);
            throw std::runtime_error("cannot write " + path_.string() + ": " + std::strerror(error));
        }
        written += static_cast<std::size_t>(n);
    }
}

JournalContents read_journal(const fs::path& dir) {
    const fs::path path = dir / journal_file_name;
    const std::string text = read_text_file(path);
    JournalContents contents;
    bool have_header = false;
    std::size_t start = 0;
    int line_number = 0;
    while (start < text.size()) {
        const std::size_t end = text.find('\n', start);
        ++line_number;
        const std::string origin = path.string() + ":" + std::to_string(line_number);
        if (end == std::string::npos) {  // no newline: cut short by a kill
            contents.truncated = true;
            break;
        }
        const std::string_view line(text.data() + start, end - start);
        start = end + 1;
        if (line.empty()) continue;
        JournalLine parsed = parse_journal_line(line, origin);
        if (parsed.header) {
            if (!have_header) contents.header = std::move(*parsed.header);
            have_header = true;
        } else {
            if (!have_header) throw std::runtime_error(origin + ": a scenario before the journal's header");
            contents.runs.emplace_back(std::move(*parsed.outcome), parsed.round);
        }
    }
    if (!have_header) throw std::runtime_error(path.string() + ": empty: not a run journal");
    return contents;
}

std::vector<ScenarioOutcome> replay_journal(const JournalContents& journal) {
    std::vector<ScenarioOutcome> outcomes;
    std::map<std::string, std::size_t> index_of;
    for (const auto& [outcome, round] : journal.runs) {
        const std::string id = outcome.config.scenario_id();
        const auto it = index_of.find(id);
        if (it == index_of.end()) {
            index_of.emplace(id, outcomes.size());
            outcomes.push_back(outcome);
        } else {
            pool_round(outcomes[it->second], ScenarioOutcome(outcome));
        }
    }
    return outcomes;
}

}  // namespace benchhost
