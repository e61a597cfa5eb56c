// JUnit XML, the test report CI systems read (GitHub Actions' test reporters, GitLab's
// `artifacts:reports:junit`, Jenkins' junit step): each scenario is a test case, in a
// test suite per plugin. A scenario that failed, crashed, timed out, exited or was
// rejected is an <error> with its status as the type and its reason as the message; a
// skipped one is <skipped> with the reason; a scenario a comparison found `slower` is a
// <failure> of type "slower" whose message is the evidence (ratio, interval, verdict
// and what it rests on, threshold), one line per slower series. Each test case's
// <system-out> holds its headline figures and, against a baseline, every verdict.
//
// `run --format junit` and `ab --format junit` write junit.xml into the run folder (with
// the verdicts against --baseline, or of the A/B pairs); `compare --junit FILE` writes
// the comparison's. docs/reports.md shows one.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analysis/compare.hpp"
#include "model/run_record.hpp"

namespace benchhost {

struct JUnitCase {
    std::string suite;  // "performance/mock_benchmark"
    std::string name;  // the scenario's name: "mock_benchmark[variant=eager,batch_size=1]"
    double seconds = 0;
    enum class Result { passed, failure, error, skipped } result = Result::passed;
    std::string type;  // of a failure or an error: "slower", "failed", "crashed", ...
    std::string message;  // one line
    std::string text;  // the details: every evidence line, the worker's last lines
    std::string output;  // <system-out>
};

/// An empty test case for a scenario id (category/plugin/scenario): the suite is the
/// plugin's, as run's junit.xml has it, the name the scenario's.
JUnitCase junit_case(std::string_view scenario_id);

/// The test cases of a run's scenarios, in the record's order; with a comparison (the
/// record is its new side), its verdicts on them.
std::vector<JUnitCase> junit_cases(const RunRecord& record, const Comparison* comparison = nullptr);

/// The document: <testsuites name=...> with a <testsuite> per suite, in the order the
/// cases first name them, and the counts and times CI systems show.
std::string junit_xml(const std::vector<JUnitCase>& cases, std::string_view name, std::string_view timestamp);

}  // namespace benchhost
