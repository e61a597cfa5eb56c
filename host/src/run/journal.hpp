// The run journal: `journal.jsonl` in the run folder, one line appended and handed to
// the kernel (write(2), O_APPEND) each time a scenario run ends, so that whatever kills
// the host, every scenario that ended is on disk. The report files are written from the
// record at the end and every few seconds (run_loop.hpp); `--resume` reads the journal
// and runs what is missing. Lines are JSON (json/result_json.hpp writes and reads them);
// a last line cut short by a kill is ignored.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "json/result_json.hpp"
#include "model/run_record.hpp"
#include "run/rounds.hpp"

namespace benchhost {

inline constexpr const char* journal_file_name = "journal.jsonl";

class RunJournal {
public:
    /// Opens (creates, or appends to) dir/journal.jsonl and appends `header`. Throws
    /// std::runtime_error naming the file.
    RunJournal(const std::filesystem::path& dir, const JournalHeader& header);
    ~RunJournal();
    RunJournal(const RunJournal&) = delete;
    RunJournal& operator=(const RunJournal&) = delete;

    /// Appends one scenario run. Throws std::runtime_error naming the file.
    void append(const ScenarioOutcome& outcome, int round);

    const std::filesystem::path& path() const { return path_; }

private:
    void write_line(const std::string& line);

    std::filesystem::path path_;
    int fd_ = -1;
};

struct JournalContents {
    JournalHeader header;  // of the first run that wrote the journal
    /// Each scenario run, in the order they ended, with its round (1-based).
    std::vector<std::pair<ScenarioOutcome, int>> runs;
    bool truncated = false;  // the last line was cut short (a kill) and was ignored
};

/// Reads dir/journal.jsonl. Throws std::runtime_error "<file>:<line>: ..." for a line
/// that is not a journal line (except a cut-short last line).
JournalContents read_journal(const std::filesystem::path& dir);

/// Rebuilds the outcomes of a journal: the rounds of a scenario pooled into one outcome
/// in the order they ran (pool_round), scenarios in the order of their first run.
std::vector<ScenarioOutcome> replay_journal(const JournalContents& journal);

}  // namespace benchhost
