// Robustness: users drop plugins built by other people into plugins/. Each test here
// runs the real host binary over a folder holding one broken plugin beside a good one
// (fixture_single), and checks that the host survives it, says exactly what is wrong
// with it, and still runs and reports the good plugin.
//
// The broken plugins are either made here from a good one (empty, text, truncated,
// foreign architecture, foreign ABI, duplicate) or built from
// tests/fixtures/plugins/broken/ into BENCH_TEST_BROKEN_PLUGIN_DIR.
#include <elf.h>
#include <gtest/gtest.h>

#include <signal.h>
#include <bench/abi.hpp>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <optional>
#include <thread>

#include "../support/processes.hpp"
#include "../support/test_support.hpp"

namespace {

using namespace benchtest;

const fs::path fixtures = BENCH_TEST_FIXTURE_PLUGIN_DIR;
const fs::path broken_fixtures = BENCH_TEST_BROKEN_PLUGIN_DIR;
const fs::path good_plugin = fixtures / "performance/libfixture_single.so";

// The handshake's first bytes: "BNCH" in little-endian order, then the ABI major and
// minor, 16 bits each (bench/abi.hpp).
constexpr std::uint32_t plugin_magic = bench::plugin_magic;
const std::string host_abi = std::to_string(bench::abi_major) + "." + std::to_string(bench::abi_minor);

/// One entry of benchmark_summary.json's results.
struct Entry {
    std::string scenario_id, plugin, status, reason, report;
};

/// What one run of the host gave.
struct HostRun {
    ProcessResult process;
    double seconds = 0;
    fs::path output;
    bool summary_read = false;
    std::vector<Entry> entries;
    int total = -1, successful = -1, failed = -1, skipped = -1;
    std::string memory_limit_by;  // the summary's run_metadata.config.memory_limit_by

    /// For failure messages: the exit status, the summary's entries and stderr.
    std::string describe() const {
        std::string text = "exit status " + std::to_string(process.exit_code) + " after " + std::to_string(seconds) +
                           " s\nsummary entries:\n";
        if (!summary_read) text += "  (no readable benchmark_summary.json)\n";
        for (const Entry& e : entries) text += "  " + e.scenario_id + " | " + e.status + " | " + e.reason + "\n";
        return text + "stderr:\n" + process.err.substr(0, 4000);
    }

    /// The entry with this scenario id, preferring one with this status.
    std::optional<Entry> find(const std::string& scenario_id, const std::string& status = "") const {
        std::optional<Entry> found;
        for (const Entry& e : entries) {
            if (e.scenario_id != scenario_id) continue;
            if (e.status == status) return e;
            if (!found) found = e;
        }
        return found;
    }
};

/// The plugin name the host gives a file: its name without "lib" and ".so".
std::string plugin_name(const fs::path& file) {
    std::string name = file.stem().string();
    if (name.starts_with("lib")) name.erase(0, 3);
    return name;
}

/// The scenario id of a plugin file refused before any scenario of it ran.
std::string rejected_id(const std::string& category, const fs::path& file) {
    return category + "/" + plugin_name(file) + "/" + plugin_name(file);
}

/// Whether process `pid` is gone: no such process, or a zombie nobody reaped yet.
bool process_gone(pid_t pid) {
    if (kill(pid, 0) != 0 && errno == ESRCH) return true;
    std::string stat;
    try {
        stat = read_file("/proc/" + std::to_string(pid) + "/stat");
    } catch (const std::exception&) {
        return true;  // vanished between the two checks
    }
    const std::size_t close_paren = stat.rfind(')');
    return close_paren != std::string::npos && close_paren + 2 < stat.size() && stat[close_paren + 2] == 'Z';
}

/// A minimal, well-formed 32-bit little-endian shared object for i386: an ELF header
/// and one PT_LOAD program header covering the whole file, no sections.
std::string elf32_i386_shared_object() {
    Elf32_Ehdr header{};
    std::memcpy(header.e_ident, ELFMAG, SELFMAG);
    header.e_ident[EI_CLASS] = ELFCLASS32;
    header.e_ident[EI_DATA] = ELFDATA2LSB;
    header.e_ident[EI_VERSION] = EV_CURRENT;
    header.e_ident[EI_OSABI] = ELFOSABI_SYSV;
    header.e_type = ET_DYN;
    header.e_machine = EM_386;
    header.e_version = EV_CURRENT;
    header.e_phoff = sizeof(Elf32_Ehdr);
    header.e_shoff = 0;
    header.e_ehsize = sizeof(Elf32_Ehdr);
    header.e_phentsize = sizeof(Elf32_Phdr);
    header.e_phnum = 1;
    header.e_shentsize = 0;
    header.e_shnum = 0;
    header.e_shstrndx = SHN_UNDEF;

    constexpr std::uint32_t file_size = sizeof(Elf32_Ehdr) + sizeof(Elf32_Phdr);
    Elf32_Phdr load{};
    load.p_type = PT_LOAD;
    load.p_offset = 0;
    load.p_vaddr = 0;
    load.p_paddr = 0;
    load.p_filesz = file_size;
    load.p_memsz = file_size;
    load.p_flags = PF_R;
    load.p_align = 0x1000;

    static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the structs are written in the host's byte order");
    std::string bytes(file_size, '\0');
    std::memcpy(bytes.data(), &header, sizeof header);
    std::memcpy(bytes.data() + sizeof header, &load, sizeof load);
    return bytes;
}

class BrokenPlugins : public ::testing::Test {
protected:
    void SetUp() override { install_plugin(good_plugin, plugins, "performance"); }

    /// Copies `source` into plugins/<category>/ as `file_name`; returns its path there.
    fs::path place(const fs::path& source, const std::string& category, const std::string& file_name = "") {
        const fs::path target = plugins / category / (file_name.empty() ? source.filename().string() : file_name);
        fs::create_directories(target.parent_path());
        fs::copy_file(source, target, fs::copy_options::overwrite_existing);
        return target;
    }

    /// Writes `bytes` as plugins/<category>/<file_name>; returns its path.
    fs::path place_bytes(const std::string& category, const std::string& file_name, const std::string& bytes) {
        const fs::path target = plugins / category / file_name;
        write_file(target, bytes);
        return target;
    }

    /// A copy of the good plugin with its handshake's ABI version replaced.
    fs::path place_with_abi(const std::string& category, const std::string& file_name, std::uint16_t major,
                            std::uint16_t minor) {
        std::string bytes = read_file(good_plugin);
        const std::uint32_t magic = plugin_magic;
        const std::size_t at = bytes.find(std::string(reinterpret_cast<const char*>(&magic), sizeof magic));
        EXPECT_NE(at, std::string::npos) << "no handshake in " << good_plugin;
        if (at != std::string::npos) {
            std::memcpy(&bytes[at + 4], &major, 2);
            std::memcpy(&bytes[at + 6], &minor, 2);
        }
        return place_bytes(category, file_name, bytes);
    }

    /// Runs the host over the plugin folder into a fresh output folder, with the
    /// plugin registry in this test's own cache folder, and reads the summary.
    HostRun run_host(const std::vector<std::string>& extra_args = {}, int timeout_s = 30) {
        HostRun run;
        run.output = work / ("out" + std::to_string(++runs));
        std::vector<std::string> argv = {benchhost_binary().string(),
                                         "run",
                                         "--plugins-dir",
                                         plugins.string(),
                                         "--output-dir",
                                         run.output.string(),
                                         "--timeout",
                                         std::to_string(timeout_s),
                                         "--variants",
                                         "eager",
                                         "--batch-sizes",
                                         "1",
                                         "--warmup-iterations",
                                         "0",
                                         "--measurement-iterations",
                                         "3"};
        argv.insert(argv.end(), extra_args.begin(), extra_args.end());
        const auto start = std::chrono::steady_clock::now();
        std::vector<std::string> env = {"XDG_CACHE_HOME=" + cache.string()};
        env.insert(env.end(), host_env.begin(), host_env.end());
        run.process = run_process(argv, work.path(), env);
        run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

        const fs::path summary_file = run.output / "benchmark_summary.json";
        if (!fs::exists(summary_file)) return run;
        try {
            const auto summary = read_json(summary_file);
            const auto& meta = summary["run_metadata"];
            run.total = meta["total_benchmarks"].GetInt();
            run.successful = meta["successful_runs"].GetInt();
            run.failed = meta["failed_runs"].GetInt();
            run.skipped = meta["skipped_runs"].GetInt();
            if (meta["config"].HasMember("memory_limit_by"))
                run.memory_limit_by = meta["config"]["memory_limit_by"].GetString();
            for (const auto& result : summary["results"].GetArray()) {
                Entry e;
                e.scenario_id = result["scenario_id"].GetString();
                e.plugin = result["plugin"].GetString();
                e.status = result["status"].GetString();
                e.reason = result["reason"].GetString();
                e.report = result["report"].GetString();
                run.entries.push_back(e);
            }
            run.summary_read = true;
        } catch (const std::exception& e) {
            ADD_FAILURE() << "cannot read " << summary_file << ": " << e.what();
        }
        return run;
    }

    /// The checks every case shares: the good plugin ran and its report was written;
    /// the broken plugin has its own entry `scenario_id` with `status`; the summary
    /// counts `failed` failed runs and the exit status says whether any failed.
    /// Returns the broken plugin's entry (empty when missing).
    Entry check_run(const HostRun& run, const std::string& scenario_id, const std::string& status, int failed = 1) {
        EXPECT_TRUE(run.summary_read) << run.describe();
        if (!run.summary_read) return {};

        // (a) The good plugin beside it was measured and reported.
        bool good_found = false;
        for (const Entry& e : run.entries) {
            if (e.plugin != "fixture_single") continue;
            good_found = true;
            EXPECT_EQ(e.status, "success") << run.describe();
            EXPECT_TRUE(fs::exists(run.output / e.report)) << e.report;
            const auto reports = files_matching(run.output / "fixture_single", "fixture_single_", ".json");
            EXPECT_EQ(reports.size(), 1u);
            if (reports.size() == 1) {
                const auto report = read_json(reports[0]);
                EXPECT_STREQ(report["benchmark_scenarios"][0]["status"].GetString(), "success");
            }
        }
        EXPECT_TRUE(good_found) << "no entry for fixture_single\n" << run.describe();

        // (b) The broken plugin has its own entry.
        const std::optional<Entry> entry = run.find(scenario_id, status);
        EXPECT_TRUE(entry.has_value()) << "no entry " << scenario_id << "\n" << run.describe();
        if (entry) {
            EXPECT_EQ(entry->status, status) << scenario_id << ": " << entry->reason;
        }

        // (c) and (d): counted as failed, and the run says so.
        EXPECT_EQ(run.failed, failed) << run.describe();
        EXPECT_EQ(run.process.exit_code, failed > 0 ? 1 : 0) << run.describe();
        return entry.value_or(Entry{});
    }

    /// Case 1 to 9: refused at discovery, never loaded. Checks the shared points and
    /// that the reason is "<path>: <why>"; returns <why>.
    std::string rejected_why(const HostRun& run, const fs::path& file, const std::string& category) {
        const Entry entry = check_run(run, rejected_id(category, file), "rejected");
        const std::string prefix = file.string() + ": ";
        EXPECT_TRUE(entry.reason.starts_with(prefix)) << entry.reason;
        return entry.reason.starts_with(prefix) ? entry.reason.substr(prefix.size()) : entry.reason;
    }

    TempDir work;
    fs::path plugins = work / "plugins";
    fs::path cache = work / "cache";
    int runs = 0;
    std::vector<std::string> host_env;  // more variables for the host
};

// ---------------------------------------------------------------- refused at discovery

TEST_F(BrokenPlugins, EmptyFile) {
    const fs::path file = place_bytes("performance", "libempty.so", "");
    EXPECT_EQ(rejected_why(run_host(), file, "performance"), "empty file");
}

TEST_F(BrokenPlugins, TextFile) {
    const fs::path file = place_bytes("unit", "libtext.so", "This is not a shared library.\nIt is text.\n");
    const std::string why = rejected_why(run_host(), file, "unit");
    EXPECT_TRUE(why.starts_with("not an ELF file")) << why;
}

TEST_F(BrokenPlugins, TruncatedToHalf) {
    const std::string bytes = read_file(good_plugin);
    const fs::path file = place_bytes("performance", "libhalf.so", bytes.substr(0, bytes.size() / 2));
    const std::string why = rejected_why(run_host(), file, "performance");
    EXPECT_TRUE(why.starts_with("truncated: ")) << why;
}

TEST_F(BrokenPlugins, TruncatedAfter100Bytes) {
    const fs::path file = place_bytes("performance", "libstub.so", read_file(good_plugin).substr(0, 100));
    const std::string why = rejected_why(run_host(), file, "performance");
    EXPECT_TRUE(why.starts_with("truncated: ")) << why;
}

TEST_F(BrokenPlugins, ForeignArchitecture) {
    std::string bytes = read_file(good_plugin);
    bytes[18] = static_cast<char>(EM_AARCH64);  // e_machine, little-endian
    bytes[19] = 0;
    const fs::path file = place_bytes("integration", "libarm.so", bytes);
    EXPECT_EQ(rejected_why(run_host(), file, "integration"), "built for aarch64 (64-bit), host is x86_64 (64-bit)");
}

TEST_F(BrokenPlugins, ThirtyTwoBitPlugin) {
    const fs::path file = place_bytes("unit", "libi386.so", elf32_i386_shared_object());
    EXPECT_EQ(rejected_why(run_host(), file, "unit"), "built for i386 (32-bit), host is x86_64 (64-bit)");
}

TEST_F(BrokenPlugins, LibraryWithoutEntryPoints) {
    const fs::path file = place(fixtures / "unit/libnot_a_plugin.so", "unit");
    const std::string why = rejected_why(run_host(), file, "unit");
    EXPECT_TRUE(why.starts_with("exports no entry point")) << why;
}

TEST_F(BrokenPlugins, EntryPointsWithoutHandshake) {
    const fs::path file = place(broken_fixtures / "unit/libno_handshake.so", "unit");
    const std::string why = rejected_why(run_host(), file, "unit");
    EXPECT_TRUE(why.starts_with("exports entry points but no bench_plugin_info")) << why;
}

TEST_F(BrokenPlugins, OtherAbiMajor) {
    const fs::path file = place_with_abi("performance", "libold_major.so", 0, 9);
    EXPECT_EQ(rejected_why(run_host(), file, "performance"), "built for SDK ABI 0.9, this host supports ABI " +
                                                                 std::to_string(bench::abi_major) + ".x (up to " +
                                                                 host_abi + "): rebuild the plugin against this SDK");
}

TEST_F(BrokenPlugins, NewerAbiMinor) {
    const auto newer = static_cast<std::uint16_t>(bench::abi_minor + 1);
    const fs::path file = place_with_abi("performance", "libnewer_minor.so", bench::abi_major, newer);
    EXPECT_EQ(rejected_why(run_host(), file, "performance"),
              "built for SDK ABI " + std::to_string(bench::abi_major) + "." + std::to_string(newer) +
                  ", newer than this host's ABI " + host_abi + ": update benchhost");
}

TEST_F(BrokenPlugins, TwoPluginsDeclareTheSameBenchmarkId) {
    const fs::path a = place(good_plugin, "performance", "libdup.so");
    const fs::path b = place(good_plugin, "performance", "dup.so");
    const HostRun run = run_host();
    const Entry rejected = check_run(run, "performance/dup/dup", "rejected");
    // The other one ran.
    int succeeded = 0;
    for (const Entry& e : run.entries) succeeded += e.plugin == "dup" && e.status == "success";
    EXPECT_EQ(succeeded, 1) << run.describe();
    const std::string why = ": declares benchmark id performance/dup/dup, already declared by ";
    EXPECT_TRUE(rejected.reason == a.string() + why + b.string() || rejected.reason == b.string() + why + a.string())
        << rejected.reason;
}

// ---------------------------------------------------------------- refused when loaded

TEST_F(BrokenPlugins, MissingDependency) {
    const fs::path file = place(broken_fixtures / "integration/libmissing_dep.so", "integration");
    const Entry entry = check_run(run_host(), "integration/missing_dep/missing_dep", "failed");
    EXPECT_TRUE(entry.reason.starts_with(file.string() + ": cannot load: ")) << entry.reason;
    EXPECT_NE(entry.reason.find("libfixture_dep.so"), std::string::npos) << entry.reason;
}

TEST_F(BrokenPlugins, UndefinedSymbol) {
    const fs::path file = place(broken_fixtures / "integration/libundefined_symbol.so", "integration");
    const Entry entry = check_run(run_host(), "integration/undefined_symbol/undefined_symbol", "failed");
    EXPECT_TRUE(entry.reason.starts_with(file.string() + ": cannot load: ")) << entry.reason;
    EXPECT_NE(entry.reason.find("undefined symbol"), std::string::npos) << entry.reason;
}

// A plugin whose static initializer crashes is remembered in the registry and refused
// by later runs, until --retry-failed or until the file changes.
TEST_F(BrokenPlugins, CrashWhileLoadingIsRememberedUntilRetriedOrChanged) {
    const fs::path file = place(broken_fixtures / "integration/libcrash_on_load.so", "integration");
    const std::string id = "integration/crash_on_load/crash_on_load";
    const std::string crashed = "crashed with SIGSEGV (Segmentation fault) while loading " + file.string();
    const std::string remembered = file.string() + ": crashed while loading in an earlier run";

    Entry entry = check_run(run_host(), id, "crashed");
    EXPECT_EQ(entry.reason, crashed);
    EXPECT_TRUE(fs::exists(cache / "benchhost/plugin_registry.json"));

    // Remembered: not loaded again.
    entry = check_run(run_host(), id, "rejected");
    EXPECT_TRUE(entry.reason.starts_with(remembered)) << entry.reason;
    EXPECT_NE(entry.reason.find("--retry-failed"), std::string::npos) << entry.reason;

    // --retry-failed loads it again.
    entry = check_run(run_host({"--retry-failed"}), id, "crashed");
    EXPECT_EQ(entry.reason, crashed);

    // The file changed (same bytes, new modification time): tried again without it.
    const std::string bytes = read_file(file);
    write_file(file, bytes);
    fs::last_write_time(file, fs::file_time_type::clock::now() + std::chrono::seconds(2));
    entry = check_run(run_host(), id, "crashed");
    EXPECT_EQ(entry.reason, crashed);

    // ... and it crashed again, so it is remembered again.
    entry = check_run(run_host(), id, "rejected");
    EXPECT_TRUE(entry.reason.starts_with(remembered)) << entry.reason;
}

// ---------------------------------------------------------------- failing at run time

TEST_F(BrokenPlugins, SleepsPastTheTimeout) {
    place(broken_fixtures / "integration/libfixture_hostile.so", "integration");
    const HostRun run = run_host({"--include", "fixture_hostile/sleeps", "--include", "fixture_single"}, 1);
    const Entry entry = check_run(run, "integration/fixture_hostile/sleeps", "timed_out");
    EXPECT_EQ(entry.reason, "timed out after 1 s; the worker was killed");
    EXPECT_LT(run.seconds, 20.0);
}

TEST_F(BrokenPlugins, FloodsStdoutAndStderr) {
    place(broken_fixtures / "integration/libfixture_hostile.so", "integration");
    const HostRun run = run_host({"--include", "fixture_hostile/floods_output", "--include", "fixture_single"});
    const Entry entry = check_run(run, "integration/fixture_hostile/floods_output", "success", 0);
    EXPECT_EQ(entry.reason, "");

    const auto logs = files_matching(run.output, "benchmark_run_", ".log");
    ASSERT_EQ(logs.size(), 1u);
    EXPECT_LT(fs::file_size(logs[0]), 3u << 20) << logs[0];

    // A successful scenario's report keeps no output.
    const auto reports = files_matching(run.output / "fixture_hostile", "fixture_hostile_", ".json");
    ASSERT_EQ(reports.size(), 1u);
    const auto report = read_json(reports[0]);
    ASSERT_EQ(report["benchmark_scenarios"].Size(), 1u);
    const auto& scenario = report["benchmark_scenarios"][0];
    EXPECT_STREQ(scenario["status"].GetString(), "success");
    EXPECT_TRUE(scenario["measurements"].HasMember("latency"));
    EXPECT_FALSE(scenario.HasMember("log_tail"));
}

TEST_F(BrokenPlugins, AllocatesWithoutBound) {
    place(broken_fixtures / "integration/libfixture_hostile.so", "integration");
    host_env = {"BENCHHOST_MEMORY_CGROUP=0"};  // RLIMIT_DATA, as where the host cannot make cgroups
    const HostRun run = run_host({"--memory-limit", "512", "--include", "fixture_hostile/allocates_without_bound",
                                  "--include", "fixture_single"});
    const Entry entry = check_run(run, "integration/fixture_hostile/allocates_without_bound", "failed");
    EXPECT_TRUE(entry.reason.starts_with("out of memory")) << entry.reason;
    EXPECT_NE(entry.reason.find("--memory-limit 512 MiB of allocated memory (RLIMIT_DATA"), std::string::npos)
        << entry.reason;
    EXPECT_EQ(run.memory_limit_by, "RLIMIT_DATA (BENCHHOST_MEMORY_CGROUP=0)");
    EXPECT_LT(run.seconds, 30.0);
}

// Where the host can make memory cgroups, the worker runs in one of its own, which the
// kernel's OOM killer ends at the limit; the reason names the cgroup's limit.
TEST_F(BrokenPlugins, AllocatesWithoutBoundInAMemoryCgroup) {
    place(broken_fixtures / "integration/libfixture_hostile.so", "integration");
    const HostRun run = run_host({"--memory-limit", "256", "--include", "fixture_hostile/allocates_without_bound",
                                  "--include", "fixture_single"});
    if (run.memory_limit_by.starts_with("RLIMIT_DATA"))
        GTEST_SKIP() << "this machine gives the host no memory cgroup: " << run.memory_limit_by;
    EXPECT_TRUE(run.memory_limit_by.starts_with("cgroup v")) << run.memory_limit_by;
    const Entry entry = check_run(run, "integration/fixture_hostile/allocates_without_bound", "failed");
    EXPECT_TRUE(entry.reason.starts_with("out of memory: the worker exceeded --memory-limit 256 MiB (cgroup v"))
        << entry.reason;
    EXPECT_NE(entry.reason.find("the kernel's OOM killer ended it"), std::string::npos) << entry.reason;
    EXPECT_LT(run.seconds, 30.0);
}

// The limit counts memory used, not address space reserved: the CUDA runtime reserves
// tens of GiB it never touches, which an address-space limit (RLIMIT_AS) would refuse.
TEST_F(BrokenPlugins, AMemoryLimitLetsAWorkerReserveAddressSpaceItDoesNotUse) {
    place(broken_fixtures / "integration/libfixture_hostile.so", "integration");
    const HostRun run = run_host({"--memory-limit", "512", "--include", "fixture_hostile/reserves_address_space",
                                  "--include", "fixture_single"});
    check_run(run, "integration/fixture_hostile/reserves_address_space", "success", 0);
}

// The scenario itself returns normally; what it left running must not outlive the run.
TEST_F(BrokenPlugins, ChildProcessIsGoneAfterTheRun) {
    place(broken_fixtures / "integration/libfixture_hostile.so", "integration");
    const fs::path pid_file = work / "child.pid";
    const HostRun run = run_host({"--param", "pid_file=" + pid_file.string(), "--include",
                                  "fixture_hostile/leaves_a_child", "--include", "fixture_single"});
    const Entry entry = check_run(run, "integration/fixture_hostile/leaves_a_child", "success", 0);
    EXPECT_EQ(entry.reason, "");

    ASSERT_TRUE(fs::exists(pid_file)) << run.describe();
    const pid_t child = static_cast<pid_t>(std::stol(read_file(pid_file)));
    ASSERT_GT(child, 1);
    bool gone = process_gone(child);
    for (int i = 0; i < 40 && !gone; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        gone = process_gone(child);
    }
    EXPECT_TRUE(gone) << "the plugin's child " << child << " outlived the run";
    if (!gone) kill(child, SIGKILL);
}

// What the scenario started in sessions of its own is stopped when the worker ends, and
// the scenario says so wherever its warnings go.
TEST_F(BrokenPlugins, ProcessesLeftInSessionsOfTheirOwnAreStoppedWithAWarning) {
    const std::vector<std::string> sleep = {"sleep", sleep_marker(1)};
    const KillsOnExit cleanup(sleep);
    place(broken_fixtures / "integration/libfixture_hostile.so", "integration");
    const HostRun run = run_host({"--param", "marker=" + sleep[1], "--include",
                                  "fixture_hostile/leaves_processes_running", "--include", "fixture_single"});
    const Entry entry = check_run(run, "integration/fixture_hostile/leaves_processes_running", "success", 0);
    EXPECT_EQ(entry.reason, "");
    EXPECT_EQ(processes_with_command_line(sleep), std::vector<pid_t>{}) << "left running after the run";

    const auto reports = files_matching(run.output / "fixture_hostile", "fixture_hostile_", ".json");
    ASSERT_EQ(reports.size(), 1u);
    const auto report = read_json(reports[0]);
    const auto& scenario = report["benchmark_scenarios"][0];
    EXPECT_EQ(scenario["measurements"]["started"]["value"].GetDouble(), 3.0) << "the fixture did not start them all";
    std::vector<std::string> stopped;
    for (const auto& warning : scenario["warnings"].GetArray())
        if (std::string(warning.GetString()).starts_with("stopped ")) stopped.emplace_back(warning.GetString());
    ASSERT_EQ(stopped.size(), 1u) << run.describe();
    const std::string& warning = stopped[0];
    EXPECT_TRUE(warning.starts_with("stopped 3 processes the scenario left running: sleep " + sleep[1] + " (pid "))
        << warning;
    std::size_t named = 0;
    for (std::size_t at = 0; (at = warning.find("sleep " + sleep[1] + " (pid ", at)) != std::string::npos; ++at)
        ++named;
    EXPECT_EQ(named, 3u) << warning;
    EXPECT_NE(read_file(run.output / "report.md").find(warning), std::string::npos);
    EXPECT_NE((run.process.out + run.process.err).find(warning), std::string::npos) << "not on the console";
}

}  // namespace
