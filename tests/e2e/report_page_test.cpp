// report.html read at a glance, in headless Chromium at 1280x900 (Debian's `chromium`,
// installed by scripts/lib/setup.sh; without it the test skips, saying so): a run shaped
// like the default suite (configs/default.yaml: the same benchmarks, axes, skips and
// reasons, a failure and warnings added) is rendered, and a script appended to a copy of
// the page measures what a reader sees before scrolling, clicks a column header and
// types into the filter box. The page's screenshot is kept as
// <build>/test-artifacts/report-first-screen.png.
#include <gtest/gtest.h>

#include <rapidjson/document.h>

#include <string>
#include <vector>

#include "../support/builders.hpp"
#include "../support/chromium.hpp"
#include "../support/test_support.hpp"
#include "report/rendered_reports.hpp"

namespace {

using namespace benchtest;
using bench::Status;
using bench::Variant;

// The default suite's scenarios, in its order, with figures of the size it measures here.
benchhost::RunRecord default_suite_record() {
    benchhost::RunRecord record = record_of();
    record.hardware_warnings = {"the machine was loaded: load average 2.26 over the 2 CPUs this process may use"};
    unsigned seed = 1;
    const auto add = [&](Outcome o, double ms) {
        if (ms > 0) o.series("latency", "ms", jittered_samples(ms, 10, seed += 2, 0.02));
        record.outcomes.push_back(o.axis("device", "cpu").axis("threads", "0"));
    };
    const auto compile_mode = [](Outcome o, const char* mode) {
        return o.axis("compile_mode", mode).edit([&](auto& outcome) { outcome.config.compile_mode = mode; });
    };
    const auto variants = [&](const char* category, const char* plugin, const char* benchmark, const char* dtype,
                              double eager_ms, bool kernelized, int batch = 0) {
        const auto base = [&](Variant v) {
            Outcome o(category, plugin, benchmark);
            o.variant(v);
            if (batch > 0) o.batch_size(batch);
            return o.axis("dtype", dtype);
        };
        add(base(Variant::eager), eager_ms);
        add(compile_mode(base(Variant::compiled), "torchscript"), eager_ms / 1.2);
        if (kernelized) {
            add(base(Variant::kernelized), eager_ms / 1.4);
        } else {
            add(base(Variant::kernelized)
                    .status(Status::skipped, std::string(plugin) + " has no kernelized form of " + benchmark),
                0);
        }
    };
    for (const char* dtype : {"float32", "bfloat16"}) {
        variants("unit", "tensor_ops", "conv2d", dtype, 0.55, true);
        variants("unit", "tensor_ops", "layer_norm", dtype, 0.125, false);
        variants("unit", "tensor_ops", "matmul", dtype, 2.08, false);
        variants("unit", "tensor_ops", "softmax", dtype, 0.221, false);
    }
    for (const int batch : {1, 8})
        variants("integration", "torchscript_model", "torchscript_model", "float32", 0.15 * batch, false, batch);
    const char* mock = "mock plugin: run with --enable-mock to include it";
    for (const char* plugin : {"gpt2", "resnet50", "vit_b_16", "resnet50_py"}) {
        const double ms = std::string(plugin) == "gpt2" ? 1.94 : std::string(plugin) == "vit_b_16" ? 187 : 28.6;
        const auto model = [&](Variant v) {
            return Outcome("performance", plugin, plugin).variant(v).batch_size(1).axis("dtype", "float32");
        };
        add(model(Variant::eager), ms);
        add(compile_mode(model(Variant::compiled), "default"), ms / 1.5);
        add(compile_mode(model(Variant::compiled), "torchscript"), ms / 1.1);
        add(model(Variant::kernelized), ms / 1.45);
        if (std::string(plugin) == "gpt2" || std::string(plugin) == "resnet50") {
            const auto train = [&](Variant v) {
                return Outcome("performance", plugin, "train").variant(v).batch_size(1).axis("dtype", "float32");
            };
            add(train(Variant::eager), ms * 4);
            const std::string reason =
                std::string(plugin) + " trains in eager only: compiled and kernelized are inference variants";
            add(compile_mode(train(Variant::compiled), "default").status(Status::skipped, reason), 0);
            add(compile_mode(train(Variant::compiled), "torchscript").status(Status::skipped, reason), 0);
            add(train(Variant::kernelized).status(Status::skipped, reason), 0);
        }
    }
    for (const char* plugin : {"mock_benchmark", "mock_server", "mock_benchmark_py", "mock_server_py"})
        add(Outcome("performance", plugin, plugin).status(Status::skipped, mock), 0);
    // What the default suite does not have here, and a reader must see at once.
    record.outcomes[4].result.warnings = {"latency is unstable: samples deviate from the median by 5.1%"};
    record.outcomes[7].result.warnings = {"latency is unstable: samples deviate from the median by 10.3%"};
    for (auto& o : record.outcomes)
        if (o.config.plugin == "vit_b_16" && o.config.variant == Variant::kernelized) {
            o.result.series.clear();
            o.result.status = Status::timed_out;
            o.result.reason = "no result within 900 s (--timeout): the worker was killed";
        }
    return record;
}

// Appended to a copy of the page: what the page shows at load, then after a click on the
// median's header of the first results table (twice), then after typing into the filter
// box; written into the page as JSON, which --dump-dom prints.
const char* probe = R"js(<script>
(function(){
var r={},doc=document.documentElement;
r.width=window.innerWidth;r.height=window.innerHeight;
r.scroll_width=doc.scrollWidth;r.client_width=doc.clientWidth;
function rect(sel){var e=document.querySelector(sel);return e?e.getBoundingClientRect():null;}
var totals=rect('.totals'),overview=rect('table.overview tbody tr'),problems=rect('ul.problems');
r.totals_bottom=totals?totals.bottom:-1;r.first_overview_row_bottom=overview?overview.bottom:-1;
r.problems_top=problems?problems.top:-1;r.overview_rows=document.querySelectorAll('table.overview tbody tr').length;
var t=document.querySelector('.bench table.sortable'),hs=t.tHead.rows[0].cells,m=-1;
for(var i=0;i<hs.length;i++)if(hs[i].textContent.indexOf('Median')===0)m=i;
function column(){return Array.prototype.map.call(t.tBodies[0].rows,function(row){return parseFloat(row.cells[m].getAttribute('data-v'));});}
r.before=column();hs[m].click();r.ascending=column();hs[m].click();r.descending=column();
r.sort_state=hs[m].getAttribute('aria-sort');
var input=document.querySelector('#filter-box input');r.filter_box=!!input;
input.value='resnet50 kernel';input.dispatchEvent(new Event('input'));
r.shown=Array.prototype.filter.call(document.querySelectorAll('.bench tbody tr'),function(row){return !row.hidden;}).map(function(row){return row.getAttribute('data-id');});
r.shown_blocks=Array.prototype.filter.call(document.querySelectorAll('.bench'),function(b){return !b.hidden;}).length;
r.count=document.querySelector('#filter-box span').textContent;
var out=document.createElement('pre');out.id='probe';out.textContent=JSON.stringify(r);document.body.appendChild(out);
})();
</script>)js";

std::vector<double> numbers(const rapidjson::Value& array) {
    std::vector<double> out;
    for (const auto& v : array.GetArray()) out.push_back(v.GetDouble());
    return out;
}

TEST(ReportPage, AtFirstSightTheTotalsTheProblemsAndTheOverviewThenSortAndFilter) {
    const fs::path binary = find_chromium();
    if (binary.empty()) GTEST_SKIP() << "chromium is not installed (scripts/lib/setup.sh installs Debian's chromium)";
    TempDir work;
    const std::string html = benchhost::html_report(default_suite_record());
    write_file(work / "report.html", html);
    const Probed probed = probe_page(binary, work.path(), html, probe);
    ASSERT_TRUE(probed.problem.empty()) << probed.problem;
    const std::string& json = probed.json;
    rapidjson::Document r;
    ASSERT_FALSE(r.Parse(json.c_str()).HasParseError()) << json;

    // The viewport: 1280 wide; of the window's 900 px of height, Chromium's headless
    // window keeps some for itself (757 px were left here): the first screen is what is left.
    EXPECT_EQ(r["width"].GetInt(), 1280);
    const double screen = r["height"].GetDouble();
    EXPECT_GT(screen, 600);
    EXPECT_LE(screen, 900);
    // No sideways scrolling at 1280 px.
    EXPECT_LE(r["scroll_width"].GetInt(), r["client_width"].GetInt()) << json;
    // The first screen: the totals, the problems under them, and the overview's first row.
    EXPECT_GT(r["totals_bottom"].GetDouble(), 0);
    EXPECT_LT(r["totals_bottom"].GetDouble(), screen);
    EXPECT_GT(r["problems_top"].GetDouble(), r["totals_bottom"].GetDouble());
    EXPECT_GT(r["first_overview_row_bottom"].GetDouble(), r["problems_top"].GetDouble());
    EXPECT_LT(r["first_overview_row_bottom"].GetDouble(), screen) << json;
    // A row per benchmark that ran (not the four mocks, skipped): tensor_ops' 4,
    // torchscript_model, the 4 models and 2 training steps.
    EXPECT_EQ(r["overview_rows"].GetInt(), 11);

    // Sorting by the median: ascending, then descending, the same values.
    std::vector<double> before = numbers(r["before"]), ascending = numbers(r["ascending"]),
                        descending = numbers(r["descending"]);
    ASSERT_EQ(before.size(), 6u);  // unit/tensor_ops/conv2d: 3 variants x 2 dtypes
    std::vector<double> sorted = before;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(ascending, sorted);
    std::reverse(sorted.begin(), sorted.end());
    EXPECT_EQ(descending, sorted);
    EXPECT_NE(before, ascending);  // the test sorts something out of order
    EXPECT_STREQ(r["sort_state"].GetString(), "descending");

    // Filtering: the words "resnet50" and "kernel" leave the kernelized resnet50 and
    // resnet50_py scenarios (resnet50/train's kernelized one was skipped: no row), and
    // only the tables that hold them.
    ASSERT_TRUE(r["filter_box"].GetBool());
    std::vector<std::string> shown;
    for (const auto& id : r["shown"].GetArray()) shown.push_back(id.GetString());
    EXPECT_EQ(shown,
              (std::vector<std::string>{
                  "performance/resnet50/resnet50[variant=kernelized,batch_size=1,dtype=float32,device=cpu,threads=0]",
                  "performance/resnet50_py/resnet50_py[variant=kernelized,batch_size=1,dtype=float32,device=cpu,"
                  "threads=0]"}));
    EXPECT_EQ(r["shown_blocks"].GetInt(), 2);
    EXPECT_STREQ(r["count"].GetString(), "2 of 40 scenarios");

    // The page itself, for people: its first screen.
    const fs::path artifacts = fs::path(BENCH_TEST_BUILD_DIR) / "test-artifacts";
    fs::create_directories(artifacts);
    const fs::path png = artifacts / "report-first-screen.png";
    fs::remove(png);
    const ProcessResult shot = chromium(
        binary, work / "profile",
        {"--screenshot=" + png.string(), "--window-size=1280,900", "file://" + (work / "report.html").string()});
    ASSERT_EQ(shot.exit_code, 0) << shot.err;
    EXPECT_FALSE(console_messages(shot.err)) << shot.err;
    EXPECT_GT(fs::file_size(png), 20000u);
}

TEST(ReportPage, ReadsWithoutScriptTheTablesAreThereAndNothingIsHidden) {
    const std::string html = benchhost::html_report(default_suite_record());
    // The filter box is made by the script: without it, no dead control.
    EXPECT_NE(html.find("<div id=\"filter-box\"></div>"), std::string::npos);
    EXPECT_EQ(html.find("<input"), std::string::npos);
    EXPECT_EQ(html.find(" hidden"), std::string::npos);
    // Every scenario that ran has its row; the skipped ones are listed once, by reason.
    EXPECT_EQ(count(html, "<tr id=\"s-"), 40u);
    EXPECT_NE(html.find("<section id=\"skipped\"><h2>Skipped</h2>\n<p>18 scenarios did not run"), std::string::npos);
    EXPECT_EQ(count(html, "mock plugin: run with --enable-mock to include it"), 1u);
    // The machine and the settings at the end, folded; the command line in the open.
    EXPECT_LT(html.find("id=\"summary\""), html.find("<details id=\"machine\">"));
    EXPECT_NE(html.find("<details id=\"machine\"><summary>The machine</summary>"), std::string::npos);
}

}  // namespace
