// One model across frameworks in the reports: report.md's and report.html's section
// "Frameworks side by side" (report/model_comparison.hpp) with the fastest marked, the
// page read in headless Chromium (skipped without it), a run folder's files written by
// their reporters from one comparison, and no section for a run of one framework.
#include <rapidjson/document.h>

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../../support/builders.hpp"
#include "../../support/chromium.hpp"
#include "../../support/framework_runs.hpp"
#include "../../support/test_support.hpp"
#include "analysis/scenario_statistics.hpp"
#include "report/files/report_json.hpp"
#include "report/rendered_reports.hpp"
#include "report/reporter_registry.hpp"

namespace {

using namespace benchtest;
using benchhost::RunRecord;

/// The line of `text` that starts with `start`; empty when none does.
std::string line_starting(const std::string& text, const std::string& start) {
    const auto at = text.find("\n" + start);
    if (at == std::string::npos) return {};
    return text.substr(at + 1, text.find('\n', at + 1) - at - 1);
}

RunRecord three_frameworks() { return record_of(resnet50_in_three_frameworks()); }

TEST(FrameworkReport, ReportMdHasATablePerModelWithTheFastestMarked) {
    const std::string md = benchhost::markdown_report(three_frameworks());
    ASSERT_NE(md.find("\n## Frameworks side by side\n"), std::string::npos) << md;
    ASSERT_NE(md.find("\n### resnet50, batch 1, float32, cpu\n"), std::string::npos) << md;
    EXPECT_NE(md.find("| Framework | Plugin | Variant | Median latency (95% CI) | Against the fastest (95% CI) | "
                      "Throughput | Peak RSS | Device peak memory | Compile time |\n"),
              std::string::npos)
        << md;
    // The fastest's row, its compile time and memory; the row tied with it; one far behind.
    // (Medians and throughputs are of jittered samples: only their first digits are known.)
    const std::string fastest = line_starting(md, "| libtorch | resnet50 | compiled | ");
    EXPECT_NE(fastest.find(" ms ["), std::string::npos) << md;
    EXPECT_NE(fastest.find("] | fastest | "), std::string::npos) << md;
    EXPECT_NE(fastest.find(" images/s | 420 MiB | - | 36.7 s |"), std::string::npos) << md;
    const std::string tied = line_starting(md, "| PyTorch 2.14.1+cu130 (Python) | resnet50_py | compiled | ");
    EXPECT_NE(tied.find(" | 1.00x ["), std::string::npos) << md;
    EXPECT_NE(tied.find("], tied | "), std::string::npos) << md;
    const std::string jax = line_starting(md, "| JAX 0.6.2, Flax (Python) | resnet50_jax | compiled | ");
    EXPECT_NE(jax.find("] | 1."), std::string::npos) << md;  // about 1.2x behind
    EXPECT_EQ(jax.find("tied"), std::string::npos) << md;
    EXPECT_NE(jax.find(" | 64.0 MiB | 3.50 s |"), std::string::npos) << md;
    EXPECT_NE(line_starting(md, "| JAX 0.6.2, Flax (Python) | resnet50_jax | eager | ").find("] | 1"),
              std::string::npos)
        << md;  // about 15x behind
    // The verdict above the table.
    EXPECT_NE(md.find("Fastest: compiled in libtorch (resnet50), "), std::string::npos) << md;
    EXPECT_NE(md.find("Not told apart from it (the interval of the ratio holds 1): compiled in PyTorch "
                      "2.14.1+cu130 (Python) (resnet50_py) 1.00x ["),
              std::string::npos)
        << md;
    EXPECT_NE(md.find("Each framework at its fastest: libtorch "), std::string::npos) << md;
    EXPECT_NE(md.find(" ms (compiled); PyTorch 2.14.1+cu130 (Python) "), std::string::npos) << md;
    EXPECT_NE(md.find(" ms (compiled, 1.00x ["), std::string::npos) << md;
    EXPECT_NE(md.find("] as long); JAX 0.6.2, Flax (Python) "), std::string::npos) << md;
    // Before the other model comparisons, after the results.
    EXPECT_LT(md.find("## performance"), md.find("## Frameworks side by side"));
}

TEST(FrameworkReport, TextFromPluginsIsEscaped) {
    std::vector<benchhost::ScenarioOutcome> outcomes = resnet50_in_three_frameworks();
    for (auto& o : outcomes)
        if (o.config.plugin == "resnet50_jax") o.result.info["framework"] = "JAX | <b>*x*</b>";
    const RunRecord record = record_of(outcomes);
    const std::string md = benchhost::markdown_report(record);
    EXPECT_NE(md.find("| JAX \\| &lt;b&gt;\\*x\\*&lt;/b&gt; | resnet50_jax |"), std::string::npos) << md;
    const std::string html = benchhost::html_report(record);
    EXPECT_NE(html.find("<td>JAX | &lt;b&gt;*x*&lt;/b&gt;</td>"), std::string::npos);
    EXPECT_EQ(html.find("<b>*x*</b>"), std::string::npos);
}

TEST(FrameworkReport, ReportHtmlHasTheSectionItsLinkAndAChartPerModel) {
    const std::string html = benchhost::html_report(three_frameworks());
    EXPECT_EQ(count(html, "<section id=\"frameworks\">"), 1u);
    EXPECT_EQ(count(html, "<a href=\"#frameworks\">Frameworks</a>"), 1u);
    const std::string section = html.substr(html.find("<section id=\"frameworks\">"));
    EXPECT_EQ(count(section.substr(0, section.find("</section>")), "<tr class=\"fastest\">"), 1u);
    EXPECT_NE(section.find("<tr class=\"fastest\"><td>libtorch</td><td>resnet50</td><td>compiled</td>"),
              std::string::npos);
    EXPECT_NE(section.find("resnet50, batch 1, float32, cpu: median latency by framework and variant, with 95% CIs"),
              std::string::npos);
}

TEST(FrameworkReport, ARunOfOneFrameworkHasNoSection) {
    const RunRecord record = record_of({
        model_scenario("resnet50", "resnet50", "libtorch", bench::Variant::eager, 30, 1),
        model_scenario("resnet50", "resnet50", "libtorch", bench::Variant::compiled, 20, 2),
        model_scenario("vit_b_16", "vit_b_16", "libtorch", bench::Variant::eager, 180, 3),
    });
    const std::string md = benchhost::markdown_report(record);
    EXPECT_EQ(md.find("Frameworks side by side"), std::string::npos) << md;
    EXPECT_EQ(md.find("one framework only"), std::string::npos) << md;
    const std::string html = benchhost::html_report(record);
    EXPECT_EQ(html.find("id=\"frameworks\""), std::string::npos);
    EXPECT_EQ(html.find("href=\"#frameworks\""), std::string::npos);
}

TEST(FrameworkReport, AModelOfOneFrameworkIsNamedOnceBelowTheTables) {
    std::vector<benchhost::ScenarioOutcome> outcomes = resnet50_in_three_frameworks();
    outcomes.push_back(model_scenario("vit_b_16", "vit_b_16", "libtorch", bench::Variant::eager, 180, 7));
    const RunRecord record = record_of(outcomes);
    const std::string md = benchhost::markdown_report(record);
    EXPECT_NE(md.find("\nRan in one framework only, not compared: vit_b_16, batch 1, float32, cpu (libtorch).\n"),
              std::string::npos)
        << md;
    EXPECT_EQ(md.find("### vit_b_16"), std::string::npos);
    EXPECT_NE(benchhost::html_report(record).find(
                  "<p class=\"muted\">Ran in one framework only, not compared: vit_b_16, batch 1, float32, cpu "
                  "(libtorch).</p>"),
              std::string::npos);
}

// The files of a run folder, from their reporters at the end of a run: report.md and
// report.html from one comparison, the CSV with each scenario's framework and model.
TEST(FrameworkReport, TheRunFolderCarriesTheComparison) {
    TempDir dir;
    RunRecord record = three_frameworks();
    benchhost::analyze_run(record);
    benchhost::ReporterSettings settings;
    settings.output_dir = dir.path();
    EXPECT_TRUE(benchhost::report_whole_run(record, {"csv", "markdown", "html"}, settings).empty());
    EXPECT_NE(read_file(dir / "report.md").find("\n### resnet50, batch 1, float32, cpu\n"), std::string::npos);
    EXPECT_EQ(count(read_file(dir / "report.html"), "<tr class=\"fastest\">"), 1u);
    const std::string csv = read_file(dir.path() / benchhost::csv_report_path(record.timestamp));
    // framework, model, then the scenario (quoted: its name holds commas).
    EXPECT_NE(csv.find("\nlibtorch,resnet50,\"performance/resnet50/resnet50[variant=compiled,batch_size=1,"),
              std::string::npos)
        << csv;
    EXPECT_NE(
        csv.find("\nPyTorch 2.14.1+cu130 (Python),resnet50,\"performance/resnet50_py/resnet50_py[variant=compiled,"),
        std::string::npos)
        << csv;
    EXPECT_NE(
        csv.find("\n\"JAX 0.6.2, Flax (Python)\",resnet50,\"performance/resnet50_jax/resnet50_jax[variant=eager,"),
        std::string::npos)
        << csv;

    // Made once for the run's end, then read: the same comparison every time it is asked for.
    const benchhost::RunEnd end = benchhost::conclude_run(settings, record);
    const benchhost::FrameworkComparison& first = end.frameworks(record);
    EXPECT_EQ(&end.frameworks(record), &first);
    EXPECT_EQ(first.groups.size(), 1u);
}

// Appended to a copy of the page: what the section shows, as JSON that --dump-dom prints.
const char* frameworks_probe = R"js(<script>
(function(){
var r={},s=document.getElementById('frameworks');r.section=!!s;
r.link=!!document.querySelector('nav a[href="#frameworks"]');
if(s){
r.rows=s.querySelectorAll('tbody tr').length;
var f=s.querySelectorAll('tbody tr.fastest'),o=s.querySelector('tbody tr:not(.fastest)');r.fastest=f.length;
if(f.length&&o){r.fastest_text=f[0].cells[0].textContent+' '+f[0].cells[2].textContent;
r.fastest_height=f[0].getBoundingClientRect().height;
r.fastest_weight=getComputedStyle(f[0].cells[0]).fontWeight;r.other_weight=getComputedStyle(o.cells[0]).fontWeight;
r.marked=getComputedStyle(f[0].cells[0]).backgroundColor!==getComputedStyle(o.cells[0]).backgroundColor;}
r.charts=s.querySelectorAll('svg[role="img"]').length;r.points=s.querySelectorAll('svg circle.pt').length;}
var out=document.createElement('pre');out.id='probe';out.textContent=JSON.stringify(r);
document.body.appendChild(out);
})();
</script>)js";

TEST(FrameworkReport, ChromiumShowsTheSectionWithTheFastestMarked) {
    const fs::path binary = find_chromium();
    if (binary.empty()) GTEST_SKIP() << "chromium is not installed (scripts/lib/setup.sh installs Debian's chromium)";
    TempDir work;
    const Probed probed = probe_page(binary, work.path(), benchhost::html_report(three_frameworks()), frameworks_probe);
    ASSERT_TRUE(probed.problem.empty()) << probed.problem;
    const std::string& json = probed.json;
    rapidjson::Document r;
    ASSERT_FALSE(r.Parse(json.c_str()).HasParseError()) << json;
    ASSERT_TRUE(r["section"].GetBool()) << json;
    EXPECT_TRUE(r["link"].GetBool());
    EXPECT_EQ(r["rows"].GetInt(), 7) << json;  // 3 + 2 + 2 variants
    ASSERT_EQ(r["fastest"].GetInt(), 1) << json;
    EXPECT_STREQ(r["fastest_text"].GetString(), "libtorch compiled");
    EXPECT_GT(r["fastest_height"].GetDouble(), 0);  // shown, not hidden
    EXPECT_TRUE(r["marked"].GetBool()) << json;  // its own background
    EXPECT_STREQ(r["fastest_weight"].GetString(), "600");
    EXPECT_STREQ(r["other_weight"].GetString(), "400");
    EXPECT_EQ(r["charts"].GetInt(), 1);  // one model, one configuration
    EXPECT_EQ(r["points"].GetInt(), 7);
}

}  // namespace
