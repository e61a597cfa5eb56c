// Reads what the host needs to know about a shared object straight from its ELF file,
// without loading it: dlopen would run the file's code, and a broken file can kill
// the process that opens it (SIGBUS on a truncated file, SIGSEGV in a static
// initializer). Every read is bounds-checked against the file size.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <bench/abi.hpp>

namespace benchhost {

struct ElfInfo {
    std::string machine;  // e_machine as a name: "x86_64", "aarch64", "i386", ... or "machine 0x1234"
    int bits = 0;  // 32 or 64 (ELF class)
    bool shared_object = false;  // ET_DYN and not a PIE executable (DF_1_PIE), which dlopen refuses
    /// Defined, exported (global or weak, default or protected visibility) function
    /// symbols of .dynsym named "run_benchmark" or "benchmark_<name>", sorted.
    std::vector<std::string> entry_points;
    /// Read from the file's bytes when .dynsym exports bench_plugin_info as a defined
    /// object whose bytes lie in a section with file contents.
    std::optional<bench::PluginInfo> plugin_info;
    /// Entry point -> the variant bits its benchmark declares (BENCH_BENCHMARK_VARIANTS:
    /// a one-byte object exported as bench::benchmark_variants_prefix + the entry point).
    std::map<std::string, std::uint8_t> benchmark_variants;
    /// Set when bench_plugin_info is exported but cannot be read (too small, bytes
    /// outside the file, in .bss): says why. Empty otherwise.
    std::string plugin_info_error;
    std::vector<std::string> needed;  // DT_NEEDED entries, in file order
    /// The folders of DT_RPATH and DT_RUNPATH, in file order, as written ($ORIGIN unexpanded).
    std::vector<std::string> run_paths;
};

struct ElfInspection {
    std::optional<ElfInfo> info;  // set when the file is a well-formed ELF file
    std::string error;  // otherwise, why not: "empty file", "not an ELF file",
                        // "truncated: segment 2 ends at byte N, file has M", ...
};

/// Inspects `path`. Never throws and never maps the file executable.
ElfInspection inspect_elf(const std::filesystem::path& path);

/// The machine and class of this host process, in ElfInfo's terms.
std::string host_machine();
int host_bits();

/// Empty when `info` can be loaded by this host; otherwise a message such as
/// "built for aarch64 (64-bit), host is x86_64 (64-bit)" or "not a shared object".
std::string loadability_problem(const ElfInfo& info);

/// The LibTorch libraries a plugin links, for a worker's parent to load ahead
/// (execute/worker_server.hpp): its DT_NEEDED entries named libtorch*.so* or libc10*.so*,
/// each found through the plugin's own run paths (DT_RUNPATH, DT_RPATH; $ORIGIN and
/// ${ORIGIN} as `plugin_dir`), as absolute paths, sorted (so that every plugin of one
/// LibTorch asks for the same list). Empty when it links none, or when any of them is
/// not in its run paths: the plugin then loads them itself, the way it would anyway,
/// and is never handed another LibTorch than its own.
std::vector<std::string> linked_torch_libraries(const ElfInfo& info, const std::filesystem::path& plugin_dir);

}  // namespace benchhost
