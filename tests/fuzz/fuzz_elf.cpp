// libFuzzer target: the ELF inspector, which reads every file found under plugins/
// before anything is loaded.
//
// inspect_elf takes a path, so each input is written to one temporary file per process,
// reused. It never throws; a crash, a hang or a sanitizer report is a bug.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "discover/elf_inspector.hpp"

namespace {

const std::filesystem::path& scratch_file() {
    static const std::filesystem::path path = [] {
        const char* tmp = std::getenv("TMPDIR");
        std::filesystem::path p = (tmp != nullptr && *tmp != '\0') ? tmp : "/tmp";
        p /= "bench_fuzz_elf." + std::to_string(::getpid()) + ".so";
        std::atexit([] { ::unlink(scratch_file().c_str()); });
        return p;
    }();
    return path;
}

void write_file(const std::filesystem::path& path, const std::uint8_t* data, std::size_t size) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        std::perror(("fuzz_elf: cannot write " + path.string()).c_str());
        std::abort();
    }
    while (size > 0) {
        const ssize_t n = ::write(fd, data, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            std::perror("fuzz_elf: write");
            std::abort();
        }
        data += n;
        size -= static_cast<std::size_t>(n);
    }
    ::close(fd);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::filesystem::path& path = scratch_file();
    write_file(path, data, size);
    const benchhost::ElfInspection inspection = benchhost::inspect_elf(path);
    if (inspection.info) {
        (void)benchhost::loadability_problem(*inspection.info);
    } else if (inspection.error.empty()) {
        std::fprintf(stderr, "fuzz_elf: inspect_elf gave neither info nor an error\n");
        std::abort();
    }
    return 0;
}
