// The plugin folders a run searches: lists separated by ':', the default folders, and
// the source tree's plugins/ of a host run from its build folder.
#include "config/plugin_folders.hpp"

#include <gtest/gtest.h>

#include "../../support/test_support.hpp"

namespace {

using namespace benchhost;
using benchtest::TempDir;
using benchtest::write_file;
namespace fs = std::filesystem;
using Paths = std::vector<fs::path>;

TEST(PluginFolders, AListIsSeparatedByColonsAndEachFolderComesOnce) {
    EXPECT_EQ(plugin_folder_list({"a:b", "c", "a", "./b"}, {}), (Paths{"a", "b", "c"}));
    EXPECT_EQ(folder_list_entries({"a::b:", "c"}), (std::vector<std::string>{"a", "", "b", "", "c"}));
}

TEST(PluginFolders, AnEmptyEntryStandsForTheDefaultFolders) {
    const Paths defaults = {"/build/plugins", "/src/plugins"};
    EXPECT_EQ(plugin_folder_list({"mine:"}, defaults), (Paths{"mine", "/build/plugins", "/src/plugins"}));
    EXPECT_EQ(plugin_folder_list({":mine"}, defaults), (Paths{"/build/plugins", "/src/plugins", "mine"}));
    EXPECT_EQ(plugin_folder_list({""}, defaults), defaults);
    EXPECT_EQ(plugin_folder_list({"/src/plugins:"}, defaults), (Paths{"/src/plugins", "/build/plugins"}));
}

TEST(PluginFolders, TextIsWhatThePluginsDirOptionTakesNamesAreForPeople) {
    const PluginFolders folders{{"build/plugins", "plugins", "/opt/mine"}, "--plugins-dir"};
    EXPECT_EQ(folders.text(), "build/plugins:plugins:/opt/mine");
    EXPECT_EQ(folders.names(), "build/plugins, plugins and /opt/mine");
    EXPECT_EQ((PluginFolders{{"build/plugins"}, ""}.names()), "build/plugins");
}

TEST(PluginFolders, AHostInItsBuildFolderAlsoSearchesTheSourceTreesPlugins) {
    const TempDir work;
    const fs::path build = work / "build", source = work / "source";
    const fs::path exe = build / "bin" / "benchhost";
    // Installed, or a build folder without a CMake cache: ../plugins only, there or not.
    EXPECT_EQ(default_plugin_folders(exe), Paths{build / "plugins"});
    // A build folder whose source tree has no plugins/: the same.
    write_file(build / "CMakeCache.txt", "# This is the CMakeCache file.\nbenchhost_BINARY_DIR:STATIC=" +
                                             build.string() + "\nbenchhost_SOURCE_DIR:STATIC=" + source.string() +
                                             "\nCMAKE_HOME_DIRECTORY:INTERNAL=" + source.string() + "\n");
    EXPECT_EQ(default_plugin_folders(exe), Paths{build / "plugins"});
    // Its source tree's plugins/, after the build's.
    fs::create_directories(source / "plugins");
    EXPECT_EQ(default_plugin_folders(exe), (Paths{build / "plugins", source / "plugins"}));
    // Built in the source tree: the one folder once.
    fs::create_directories(build / "plugins");
    write_file(build / "CMakeCache.txt", "benchhost_SOURCE_DIR:STATIC=" + build.string() + "\n");
    EXPECT_EQ(default_plugin_folders(exe), Paths{build / "plugins"});
}

}  // namespace
