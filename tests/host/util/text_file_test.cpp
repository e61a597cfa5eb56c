#include "util/text_file.hpp"

#include <string>

#include <gtest/gtest.h>

#include "../../support/error_of.hpp"
#include "../../support/test_support.hpp"

namespace {

using benchhost::read_text_file;

std::string error_of(const std::filesystem::path& path) {
    return benchtest::error_of([&] { read_text_file(path); });
}

TEST(ReadTextFile, ReadsEveryByte) {
    benchtest::TempDir dir;
    std::string bytes("a\0b\r\n\xFF", 6);
    bytes += std::string(200000, 'x');  // more than one read
    benchtest::write_file(dir / "file", bytes);
    EXPECT_EQ(read_text_file(dir / "file"), bytes);
    benchtest::write_file(dir / "empty", "");
    EXPECT_EQ(read_text_file(dir / "empty"), "");
}

TEST(ReadTextFile, ErrorsNameThePathAndTheSystemError) {
    benchtest::TempDir dir;
    EXPECT_EQ(error_of(dir / "missing"), (dir / "missing").string() + ": cannot be read: No such file or directory");
    EXPECT_EQ(error_of(dir.path()), dir.path().string() + ": cannot be read: Is a directory");
}

}  // namespace
