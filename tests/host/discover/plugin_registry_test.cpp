// The registry of plugins that crashed while loading (discover/plugin_registry.hpp): where
// it is kept, a crash remembered across runs until the plugin file changes (its size or
// its modification time) or is forgotten, and a corrupt or unwritable registry file.
#include "discover/plugin_registry.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <optional>
#include <string>

#include "../../support/scoped_env.hpp"
#include "../../support/test_support.hpp"

namespace {

using benchtest::ScopedEnv;

using namespace benchhost;
using benchtest::TempDir;
namespace fs = std::filesystem;

/// A file standing for a plugin: the registry only looks at its size and modification time.
fs::path plugin_file(const TempDir& dir, const std::string& name = "libcrashy.so") {
    const fs::path file = dir / "plugins" / "unit" / name;
    benchtest::write_file(file,
                          "\x7f"
                          "ELF and some bytes");
    return file;
}

TEST(PluginRegistry, IsKeptInTheCacheFolderTheEnvironmentNames) {
    TempDir dir;
    {
        const ScopedEnv own("BENCHHOST_CACHE_DIR", dir.path().string());
        EXPECT_EQ(PluginRegistry::default_path(), dir / "plugin_registry.json");
    }
    {
        const ScopedEnv own("BENCHHOST_CACHE_DIR", std::nullopt);
        const ScopedEnv xdg("XDG_CACHE_HOME", (dir / "xdg").string());
        EXPECT_EQ(PluginRegistry::default_path(), dir / "xdg" / "benchhost" / "plugin_registry.json");
    }
    {
        // No absolute path to go by: a folder under /tmp.
        const ScopedEnv own("BENCHHOST_CACHE_DIR", std::nullopt);
        const ScopedEnv xdg("XDG_CACHE_HOME", std::nullopt);
        const ScopedEnv home("HOME", "relative/home");
        EXPECT_EQ(PluginRegistry::default_path(), fs::path("/tmp/.cache/benchhost/plugin_registry.json"));
    }
}

TEST(PluginRegistry, ACrashIsRememberedByTheNextRunWithItsReason) {
    TempDir dir;
    const ScopedEnv own("BENCHHOST_CACHE_DIR", dir.path().string());
    const fs::path plugin = plugin_file(dir), other = plugin_file(dir, "libfine.so");
    {
        PluginRegistry registry(PluginRegistry::default_path());
        EXPECT_FALSE(registry.crash_reason(plugin).has_value());
        registry.record_crash(plugin, "SIGSEGV (Segmentation fault) while loading");
        EXPECT_EQ(registry.crash_reason(plugin), "SIGSEGV (Segmentation fault) while loading");
        EXPECT_EQ(registry.save(), std::nullopt);
    }
    ASSERT_TRUE(fs::exists(dir / "plugin_registry.json"));
    const PluginRegistry next_run(PluginRegistry::default_path());
    EXPECT_EQ(next_run.crash_reason(plugin), "SIGSEGV (Segmentation fault) while loading");
    EXPECT_FALSE(next_run.crash_reason(other).has_value());
    // The same file by another spelling of its path.
    EXPECT_EQ(next_run.crash_reason(plugin.parent_path() / ".." / "unit" / plugin.filename()),
              "SIGSEGV (Segmentation fault) while loading");
}

TEST(PluginRegistry, ACrashIsForgottenWhenThePluginFilesSizeChanges) {
    TempDir dir;
    const fs::path plugin = plugin_file(dir);
    PluginRegistry registry(dir / "plugin_registry.json");
    registry.record_crash(plugin, "crashed");
    ASSERT_EQ(registry.save(), std::nullopt);
    const auto mtime = fs::last_write_time(plugin);
    benchtest::write_file(plugin,
                          "\x7f"
                          "ELF, rebuilt with a fix");
    fs::last_write_time(plugin, mtime);  // only the size differs
    EXPECT_FALSE(registry.crash_reason(plugin).has_value());
    EXPECT_FALSE(PluginRegistry(dir / "plugin_registry.json").crash_reason(plugin).has_value());
}

TEST(PluginRegistry, ACrashIsForgottenWhenThePluginFilesModificationTimeChanges) {
    TempDir dir;
    const fs::path plugin = plugin_file(dir);
    PluginRegistry registry(dir / "plugin_registry.json");
    registry.record_crash(plugin, "crashed");
    ASSERT_EQ(registry.save(), std::nullopt);
    fs::last_write_time(plugin, fs::last_write_time(plugin) + std::chrono::seconds(1));  // touched, same size
    EXPECT_FALSE(registry.crash_reason(plugin).has_value());
    EXPECT_FALSE(PluginRegistry(dir / "plugin_registry.json").crash_reason(plugin).has_value());
}

TEST(PluginRegistry, ForgottenAndRemovedPluginsHaveNoCrash) {
    TempDir dir;
    const fs::path plugin = plugin_file(dir), removed = plugin_file(dir, "libremoved.so");
    PluginRegistry registry(dir / "plugin_registry.json");
    registry.record_crash(plugin, "crashed");
    registry.record_crash(removed, "crashed too");
    registry.forget(plugin);  // --retry-failed, and it loaded
    fs::remove(removed);
    EXPECT_FALSE(registry.crash_reason(plugin).has_value());
    EXPECT_FALSE(registry.crash_reason(removed).has_value());
    // A file that is not there is not recorded: it has no size or time to go by.
    registry.record_crash(dir / "plugins" / "unit" / "libnever.so", "crashed");
    ASSERT_EQ(registry.save(), std::nullopt);
    const std::string saved = benchtest::read_file(dir / "plugin_registry.json");
    EXPECT_EQ(saved.find("libnever.so"), std::string::npos) << saved;
    EXPECT_EQ(saved.find("libcrashy.so"), std::string::npos) << saved;
    EXPECT_NE(saved.find("libremoved.so"), std::string::npos) << "removed, but recorded while it was there: " << saved;
}

TEST(PluginRegistry, ACorruptRegistryStartsEmptyAndIsRewritten) {
    TempDir dir;
    const fs::path plugin = plugin_file(dir), file = dir / "plugin_registry.json";
    benchtest::write_file(file, "{\"crashed_plugins\": [ {\"path\": ");  // cut short
    PluginRegistry registry(file);
    EXPECT_FALSE(registry.crash_reason(plugin).has_value());
    registry.record_crash(plugin, "crashed");
    ASSERT_EQ(registry.save(), std::nullopt);
    EXPECT_EQ(PluginRegistry(file).crash_reason(plugin), "crashed");
}

TEST(PluginRegistry, EntriesOfTheWrongShapeArePassedOverAndTheOthersKept) {
    TempDir dir;
    const fs::path plugin = plugin_file(dir), file = dir / "plugin_registry.json";
    PluginRegistry writer(file);
    writer.record_crash(plugin, "crashed");
    ASSERT_EQ(writer.save(), std::nullopt);
    // An entry whose size is text, and one that is not an object, before the good one.
    std::string text = benchtest::read_file(file);
    const std::size_t list = text.find('[');
    ASSERT_NE(list, std::string::npos) << text;
    text.insert(list + 1, "{\"path\": \"/x/liba.so\", \"size\": \"12\", \"mtime_ns\": 1, \"reason\": \"r\"}, 7, ");
    benchtest::write_file(file, text);
    EXPECT_EQ(PluginRegistry(file).crash_reason(plugin), "crashed");

    benchtest::write_file(file, "[\"not\", \"an object\"]");
    EXPECT_FALSE(PluginRegistry(file).crash_reason(plugin).has_value());
}

TEST(PluginRegistry, ARegistryThatCannotBeWrittenSaysWhyInsteadOfThrowing) {
    TempDir dir;
    const fs::path plugin = plugin_file(dir);
    benchtest::write_file(dir / "not_a_folder", "a file");
    PluginRegistry registry(dir / "not_a_folder" / "plugin_registry.json");
    registry.record_crash(plugin, "crashed");
    const std::optional<std::string> error = registry.save();
    ASSERT_TRUE(error.has_value());
    EXPECT_NE(error->find("not_a_folder"), std::string::npos) << *error;
}

}  // namespace
