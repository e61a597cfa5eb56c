// Tests for the ELF inspector: the fixture plugins, and copies of them that are
// truncated, patched for another machine or class, or damaged at random. None of these
// files is ever loaded; a crash here is a bug in the inspector.
#include "discover/elf_inspector.hpp"

#include <elf.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <random>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

namespace fs = std::filesystem;
using benchhost::ElfInfo;
using benchhost::ElfInspection;
using benchhost::inspect_elf;
using benchhost::loadability_problem;

namespace {

const fs::path fixture_dir = BENCH_TEST_FIXTURE_PLUGIN_DIR;
const fs::path single_path = fixture_dir / "performance" / "libfixture_single.so";
const fs::path multi_path = fixture_dir / "unit" / "libfixture_multi.so";
const fs::path not_a_plugin_path = fixture_dir / "unit" / "libnot_a_plugin.so";
const fs::path text_file_path = fixture_dir / "unit" / "libtext_file.so";

using Bytes = std::vector<char>;

Bytes read_bytes(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

template <class T>
T get(const Bytes& bytes, std::size_t offset) {
    T value;
    std::memcpy(&value, bytes.data() + offset, sizeof value);
    return value;
}

template <class T>
void put(Bytes& bytes, std::size_t offset, const T& value) {
    std::memcpy(bytes.data() + offset, &value, sizeof value);
}

/// A fresh folder under the system's temporary folder, removed with everything in it.
class ElfTempDir {
public:
    ElfTempDir() {
        static std::atomic<int> counter{0};
        path_ = fs::temp_directory_path() /
                ("elf_inspector_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
        fs::remove_all(path_);
        fs::create_directories(path_);
    }
    ~ElfTempDir() {
        std::error_code ec;
        fs::remove_all(path_, ec);
    }
    ElfTempDir(const ElfTempDir&) = delete;
    ElfTempDir& operator=(const ElfTempDir&) = delete;

    const fs::path& path() const { return path_; }

    fs::path write(const std::string& name, const Bytes& bytes) const {
        const fs::path file = path_ / name;
        std::ofstream out(file, std::ios::binary | std::ios::trunc);
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        return file;
    }

private:
    fs::path path_;
};

// The fixtures are 64-bit little-endian files of this host: the tests patch them with
// <elf.h>'s native structures.
Elf64_Ehdr header_of(const Bytes& bytes) { return get<Elf64_Ehdr>(bytes, 0); }

Elf64_Shdr section_header(const Bytes& bytes, std::size_t index) {
    const Elf64_Ehdr eh = header_of(bytes);
    return get<Elf64_Shdr>(bytes, eh.e_shoff + index * sizeof(Elf64_Shdr));
}

/// File offset of the .dynsym entry named `name`.
std::optional<std::size_t> dynsym_entry_offset(const Bytes& bytes, std::string_view name) {
    const Elf64_Ehdr eh = header_of(bytes);
    for (std::size_t i = 0; i < eh.e_shnum; ++i) {
        const Elf64_Shdr sh = section_header(bytes, i);
        if (sh.sh_type != SHT_DYNSYM) continue;
        const Elf64_Shdr strtab = section_header(bytes, sh.sh_link);
        for (std::size_t off = sh.sh_offset; off + sizeof(Elf64_Sym) <= sh.sh_offset + sh.sh_size;
             off += sizeof(Elf64_Sym)) {
            const auto sym = get<Elf64_Sym>(bytes, off);
            if (std::string_view(bytes.data() + strtab.sh_offset + sym.st_name) == name) return off;
        }
    }
    return std::nullopt;
}

Elf64_Sym symbol_at(const Bytes& bytes, std::size_t offset) { return get<Elf64_Sym>(bytes, offset); }

/// File offset of a symbol's bytes, from the section that holds its address.
std::size_t symbol_file_offset(const Bytes& bytes, const Elf64_Sym& sym) {
    const Elf64_Shdr holder = section_header(bytes, sym.st_shndx);
    return holder.sh_offset + (sym.st_value - holder.sh_addr);
}

unsigned char make_st_info(unsigned bind, unsigned type) {
    return static_cast<unsigned char>((bind << 4) | (type & 0xfU));
}

ElfInfo inspect_ok(const fs::path& path) {
    const ElfInspection r = inspect_elf(path);
    EXPECT_EQ(r.error, "") << path;
    EXPECT_TRUE(r.info.has_value()) << path;
    return r.info.value_or(ElfInfo{});
}

class ElfInspectorTest : public ::testing::Test {
protected:
    void SetUp() override {
        single_ = read_bytes(single_path);
        ASSERT_GT(single_.size(), sizeof(Elf64_Ehdr)) << "fixture missing: " << single_path;
        ASSERT_EQ(header_of(single_).e_ident[EI_CLASS], ELFCLASS64);
    }

    ElfInspection inspect_copy(const Bytes& bytes, const std::string& name = "copy.so") {
        return inspect_elf(dir_.write(name, bytes));
    }

    ElfTempDir dir_;
    Bytes single_;
};

// ---------------------------------------------------------------- the fixtures

TEST(ElfInspectorHost, MachineAndBits) {
#if defined(__x86_64__) && defined(__LP64__)
    EXPECT_EQ(benchhost::host_machine(), "x86_64");
    EXPECT_EQ(benchhost::host_bits(), 64);
#else
    EXPECT_FALSE(benchhost::host_machine().empty());
    EXPECT_EQ(benchhost::host_bits(), static_cast<int>(sizeof(void*) * 8));
#endif
}

TEST(ElfInspectorFixtures, SinglePlugin) {
    const ElfInfo info = inspect_ok(single_path);
    EXPECT_EQ(info.machine, benchhost::host_machine());
    EXPECT_EQ(info.bits, benchhost::host_bits());
    EXPECT_TRUE(info.shared_object);
    EXPECT_EQ(info.entry_points, std::vector<std::string>{"run_benchmark"});
    EXPECT_EQ(info.plugin_info_error, "");
    ASSERT_TRUE(info.plugin_info.has_value());
    const bench::PluginInfo& pi = *info.plugin_info;
    EXPECT_EQ(pi.magic, bench::plugin_magic);
    EXPECT_EQ(pi.abi_major, bench::abi_major);
    EXPECT_EQ(pi.abi_minor, bench::abi_minor);
    EXPECT_EQ(pi.info_size, sizeof(bench::PluginInfo));
    EXPECT_STREQ(pi.sdk_version, BENCH_SDK_VERSION);
    EXPECT_STREQ(pi.name, "fixture_single");
    EXPECT_STREQ(pi.version, "1.2.3");
    EXPECT_STREQ(pi.axes, "variant,batch_size");
    EXPECT_EQ(pi.mock, 0);
    // How it was compiled (ABI 2.2): recorded, with the compiler's name.
    EXPECT_NE(pi.build.flags & bench::build_recorded, 0);
    const std::string compiler = pi.build.compiler;
    EXPECT_TRUE(compiler.starts_with("GCC ") || compiler.starts_with("Clang ")) << compiler;
    const std::string sdk_soname = "libbench_sdk.so." + std::to_string(bench::abi_major);
    EXPECT_NE(std::find(info.needed.begin(), info.needed.end(), sdk_soname), info.needed.end())
        << "DT_NEEDED lacks " << sdk_soname;
    // Its run path (DT_RUNPATH, as CMake writes it in the build tree) names the build's
    // lib folder, where the SDK it needs is.
    EXPECT_TRUE(std::any_of(info.run_paths.begin(), info.run_paths.end(),
                            [&](const std::string& folder) { return fs::exists(fs::path(folder) / sdk_soname); }))
        << "no run path holds " << sdk_soname;
    EXPECT_EQ(loadability_problem(info), "");
}

TEST(LinkedTorchLibraries, AreFoundThroughThePluginsOwnRunPathsWithOriginExpanded) {
    const fs::path dir = fs::temp_directory_path() / ("benchhost-torch-libs-" + std::to_string(getpid()));
    fs::create_directories(dir / "plugins" / "torch" / "lib");
    fs::create_directories(dir / "other");
    for (const char* name : {"libtorch.so", "libc10.so", "libtorch_cpu.so"})
        std::ofstream(dir / "plugins" / "torch" / "lib" / name) << "";
    std::ofstream(dir / "other" / "libc10.so") << "";
    ElfInfo info;
    info.needed = {"libbench_sdk.so.2", "libtorch.so", "libtorch_cpu.so", "libc10.so", "libstdc++.so.6"};
    info.run_paths = {(dir / "nothing").string(), "$ORIGIN/torch/lib", (dir / "other").string()};
    const fs::path plugins = dir / "plugins";
    const fs::path lib = plugins / "torch" / "lib";
    // Sorted, each from the first run path that holds it; none of the other libraries.
    EXPECT_EQ(benchhost::linked_torch_libraries(info, plugins),
              (std::vector<std::string>{(lib / "libc10.so").string(), (lib / "libtorch.so").string(),
                                        (lib / "libtorch_cpu.so").string()}));
    info.run_paths = {"${ORIGIN}/torch/lib"};
    EXPECT_EQ(benchhost::linked_torch_libraries(info, plugins).size(), 3u);
    // One that its run paths do not hold: none at all, the plugin loads them itself.
    info.needed.push_back("libtorch_cuda.so");
    EXPECT_TRUE(benchhost::linked_torch_libraries(info, plugins).empty());
    // A relative run path is not resolved against whatever the current folder is.
    info.needed = {"libc10.so"};
    info.run_paths = {"torch/lib"};
    EXPECT_TRUE(benchhost::linked_torch_libraries(info, plugins).empty());
    // No LibTorch linked: nothing.
    info.needed = {"libbench_sdk.so.2"};
    info.run_paths = {lib.string()};
    EXPECT_TRUE(benchhost::linked_torch_libraries(info, plugins).empty());
    fs::remove_all(dir);
}

TEST(ElfInspectorFixtures, BuildFlagsAsCompiled) {
    const fs::path handshake_dir = BENCH_TEST_HANDSHAKE_PLUGIN_DIR;
    const ElfInfo unoptimized = inspect_ok(handshake_dir / "unit/libfixture_unoptimized.so");
    ASSERT_TRUE(unoptimized.plugin_info.has_value()) << unoptimized.plugin_info_error;
    EXPECT_EQ(unoptimized.plugin_info->build.flags, bench::build_recorded | bench::build_assertions);  // -O0, no NDEBUG
    const ElfInfo optimized = inspect_ok(handshake_dir / "unit/libfixture_optimized.so");
    ASSERT_TRUE(optimized.plugin_info.has_value()) << optimized.plugin_info_error;
    EXPECT_EQ(optimized.plugin_info->build.flags, bench::build_recorded | bench::build_optimized);  // -O2 -DNDEBUG
    EXPECT_STREQ(optimized.plugin_info->build.compiler, unoptimized.plugin_info->build.compiler);
}

TEST(ElfInspectorFixtures, MultiPlugin) {
    const ElfInfo info = inspect_ok(multi_path);
    EXPECT_TRUE(info.shared_object);
    EXPECT_EQ(info.entry_points, (std::vector<std::string>{"benchmark_alpha", "benchmark_beta", "benchmark_gamma"}));
    EXPECT_EQ(info.plugin_info_error, "");
    ASSERT_TRUE(info.plugin_info.has_value());
    EXPECT_STREQ(info.plugin_info->name, "fixture_multi");
    EXPECT_STREQ(info.plugin_info->version, "0.1.0");
    EXPECT_STREQ(info.plugin_info->axes, "");
    EXPECT_EQ(info.plugin_info->abi_major, bench::abi_major);
    EXPECT_EQ(loadability_problem(info), "");
}

TEST(ElfInspectorFixtures, ABenchmarksOwnVariantsAreReadFromTheFile) {
    const ElfInfo info = inspect_ok(fs::path(BENCH_TEST_PLAN_FIXTURE_DIR) / "performance/libfixture_two_variants.so");
    EXPECT_EQ(info.entry_points, (std::vector<std::string>{"benchmark_eager_only", "run_benchmark"}));
    EXPECT_EQ(info.benchmark_variants,
              (std::map<std::string, std::uint8_t>{{"benchmark_eager_only", bench::eager_bit}}));
    ASSERT_TRUE(info.plugin_info.has_value());
    EXPECT_EQ(info.plugin_info->variants, bench::eager_bit | bench::compiled_bit);
    EXPECT_TRUE(inspect_ok(multi_path).benchmark_variants.empty());
}

TEST(ElfInspectorFixtures, OrdinarySharedLibrary) {
    const ElfInfo info = inspect_ok(not_a_plugin_path);
    EXPECT_TRUE(info.shared_object);
    EXPECT_TRUE(info.entry_points.empty());
    EXPECT_FALSE(info.plugin_info.has_value());
    EXPECT_EQ(info.plugin_info_error, "");
    EXPECT_EQ(loadability_problem(info), "");
}

TEST(ElfInspectorFixtures, TextFileNamedLikeALibrary) {
    const ElfInspection r = inspect_elf(text_file_path);
    EXPECT_FALSE(r.info.has_value());
    EXPECT_EQ(r.error, "not an ELF file (starts with \"This is \")");
}

// ---------------------------------------------------------------- files that are not ELF

TEST_F(ElfInspectorTest, EmptyFile) {
    const ElfInspection r = inspect_copy({}, "libempty.so");
    EXPECT_FALSE(r.info.has_value());
    EXPECT_EQ(r.error, "empty file");
}

TEST_F(ElfInspectorTest, BinaryNonElfShowsHexBytes) {
    const ElfInspection r = inspect_copy({'P', 'K', '\x03', '\x04', '\x14', '\0'});
    EXPECT_FALSE(r.info.has_value());
    EXPECT_EQ(r.error, "not an ELF file (starts with bytes 50 4b 03 04)");
}

TEST_F(ElfInspectorTest, MissingFileAndDirectory) {
    const ElfInspection missing = inspect_elf(dir_.path() / "no_such.so");
    EXPECT_FALSE(missing.info.has_value());
    EXPECT_EQ(missing.error, "cannot open: No such file or directory");

    const ElfInspection directory = inspect_elf(dir_.path());
    EXPECT_FALSE(directory.info.has_value());
    EXPECT_EQ(directory.error, "not a regular file");
}

TEST_F(ElfInspectorTest, GarbageAfterMagic) {
    Bytes bytes = {'\x7f', 'E', 'L', 'F'};
    bytes.resize(4096, '\xff');
    ElfInspection r = inspect_copy(bytes);
    EXPECT_FALSE(r.info.has_value());
    EXPECT_EQ(r.error, "malformed ELF header: unknown class 255");

    // Random bytes after the magic, and after a valid identification: whatever comes
    // out, it must come out without a crash, and an error means no info.
    std::mt19937 rng(12345);
    for (int round = 0; round < 300; ++round) {
        Bytes garbage = {'\x7f', 'E', 'L', 'F'};
        if (round % 2 == 1) garbage.insert(garbage.end(), {ELFCLASS64, ELFDATA2LSB, EV_CURRENT});
        if (round % 4 == 3) garbage.insert(garbage.end(), 9, '\0');
        const std::size_t length = std::uniform_int_distribution<std::size_t>(0, 2048)(rng);
        for (std::size_t i = 0; i < length; ++i) garbage.push_back(static_cast<char>(rng() & 0xff));
        r = inspect_copy(garbage);
        EXPECT_NE(r.info.has_value(), !r.error.empty()) << "round " << round;
    }
}

// ---------------------------------------------------------------- truncated files

const std::regex truncated_pattern(
    R"(truncated: (ELF identification|ELF header|program header table|section header table|segment \d+|section \d+) ends at byte \d+, file has (\d+) bytes)");

TEST_F(ElfInspectorTest, TruncatedToHalf) {
    Bytes half(single_.begin(), single_.begin() + static_cast<std::ptrdiff_t>(single_.size() / 2));
    const ElfInspection r = inspect_copy(half);
    EXPECT_FALSE(r.info.has_value());
    std::smatch m;
    ASSERT_TRUE(std::regex_match(r.error, m, truncated_pattern)) << r.error;
    EXPECT_EQ(m[2].str(), std::to_string(half.size()));
}

TEST_F(ElfInspectorTest, TruncatedJustPastTheHeader) {
    Bytes bytes(single_.begin(), single_.begin() + sizeof(Elf64_Ehdr) + 8);
    ElfInspection r = inspect_copy(bytes);
    EXPECT_FALSE(r.info.has_value());
    EXPECT_TRUE(std::regex_match(r.error, truncated_pattern)) << r.error;

    bytes.resize(20);
    r = inspect_copy(bytes);
    EXPECT_EQ(r.error, "truncated: ELF header ends at byte 64, file has 20 bytes");

    bytes.resize(3);
    r = inspect_copy(bytes);
    EXPECT_EQ(r.error, "truncated: ELF identification ends at byte 16, file has 3 bytes");
}

TEST_F(ElfInspectorTest, EveryTruncationIsCaught) {
    const std::size_t step = std::max<std::size_t>(1, single_.size() / 97);
    for (std::size_t length = 1; length < single_.size(); length += step) {
        const Bytes cut(single_.begin(), single_.begin() + static_cast<std::ptrdiff_t>(length));
        const ElfInspection r = inspect_copy(cut);
        EXPECT_FALSE(r.info.has_value()) << "length " << length;
        EXPECT_TRUE(std::regex_match(r.error, truncated_pattern)) << "length " << length << ": " << r.error;
    }
    // One byte short.
    const Bytes cut(single_.begin(), single_.end() - 1);
    EXPECT_TRUE(std::regex_match(inspect_copy(cut).error, truncated_pattern));
}

TEST_F(ElfInspectorTest, TruncatedSegmentWithoutSectionHeaders) {
    // Without section headers, only the segments show that the file was cut: this is
    // the case where dlopen would die with SIGBUS.
    Bytes bytes = single_;
    Elf64_Ehdr eh = header_of(bytes);
    eh.e_shoff = 0;
    eh.e_shnum = 0;
    eh.e_shstrndx = SHN_UNDEF;
    put(bytes, 0, eh);
    ASSERT_EQ(inspect_copy(bytes).error, "");

    // Cut inside the last PT_LOAD segment that has file contents.
    std::size_t last_load = 0;
    Elf64_Phdr last{};
    for (std::size_t i = 0; i < eh.e_phnum; ++i) {
        const auto ph = get<Elf64_Phdr>(bytes, eh.e_phoff + i * sizeof(Elf64_Phdr));
        if (ph.p_type == PT_LOAD && ph.p_filesz > 0) {
            last_load = i;
            last = ph;
        }
    }
    ASSERT_GT(last.p_filesz, 1U);
    const std::size_t length = last.p_offset + last.p_filesz / 2;
    ASSERT_GT(length, eh.e_phoff + eh.e_phnum * sizeof(Elf64_Phdr));
    bytes.resize(length);
    const ElfInspection r = inspect_copy(bytes);
    EXPECT_FALSE(r.info.has_value());
    EXPECT_EQ(r.error, "truncated: segment " + std::to_string(last_load) + " ends at byte " +
                           std::to_string(last.p_offset + last.p_filesz) + ", file has " + std::to_string(length) +
                           " bytes");
}

TEST_F(ElfInspectorTest, SegmentPastTheEndOfTheFile) {
    Bytes bytes = single_;
    const Elf64_Ehdr eh = header_of(bytes);
    for (std::size_t i = 0; i < eh.e_phnum; ++i) {
        const std::size_t off = eh.e_phoff + i * sizeof(Elf64_Phdr);
        auto ph = get<Elf64_Phdr>(bytes, off);
        if (ph.p_type != PT_LOAD) continue;
        ph.p_filesz = bytes.size() - ph.p_offset + 100;
        put(bytes, off, ph);
        const ElfInspection r = inspect_copy(bytes);
        EXPECT_EQ(r.error, "truncated: segment " + std::to_string(i) + " ends at byte " +
                               std::to_string(bytes.size() + 100) + ", file has " + std::to_string(bytes.size()) +
                               " bytes");
        return;
    }
    FAIL() << "no PT_LOAD segment";
}

// ---------------------------------------------------------------- patched headers

TEST_F(ElfInspectorTest, OtherMachine) {
    Bytes bytes = single_;
    Elf64_Ehdr eh = header_of(bytes);
    eh.e_machine = EM_AARCH64;
    put(bytes, 0, eh);
    ElfInspection r = inspect_copy(bytes);
    ASSERT_TRUE(r.info.has_value()) << r.error;
    EXPECT_EQ(r.info->machine, "aarch64");
    EXPECT_EQ(r.info->bits, 64);
    EXPECT_TRUE(r.info->shared_object);
    EXPECT_EQ(r.info->entry_points, std::vector<std::string>{"run_benchmark"});
    EXPECT_EQ(loadability_problem(*r.info), "built for aarch64 (64-bit), host is x86_64 (64-bit)");

    eh.e_machine = 0x1234;
    put(bytes, 0, eh);
    r = inspect_copy(bytes);
    ASSERT_TRUE(r.info.has_value()) << r.error;
    EXPECT_EQ(r.info->machine, "machine 0x1234");
}

TEST_F(ElfInspectorTest, ClassPatchedTo32BitIsRejected) {
    // A 64-bit file read as 32-bit: its header fields land in the wrong places, and
    // e_ehsize no longer reads 52.
    Bytes bytes = single_;
    bytes[EI_CLASS] = ELFCLASS32;
    const ElfInspection r = inspect_copy(bytes);
    EXPECT_FALSE(r.info.has_value());
    EXPECT_TRUE(r.error.starts_with("malformed ELF header: header size is ")) << r.error;
    EXPECT_TRUE(r.error.ends_with(" bytes, a 32-bit header has 52")) << r.error;
}

TEST_F(ElfInspectorTest, OtherByteOrderDoesNotCrash) {
    Bytes bytes = single_;
    bytes[EI_DATA] = ELFDATA2MSB;
    const ElfInspection r = inspect_copy(bytes);
    EXPECT_NE(r.info.has_value(), !r.error.empty());
    EXPECT_TRUE(r.error.starts_with("malformed ELF header")) << r.error;
}

TEST_F(ElfInspectorTest, UnknownVersionAndByteOrder) {
    Bytes bytes = single_;
    bytes[EI_VERSION] = 7;
    EXPECT_EQ(inspect_copy(bytes).error, "malformed ELF header: unknown ELF version 7");
    bytes = single_;
    bytes[EI_DATA] = 3;
    EXPECT_EQ(inspect_copy(bytes).error, "malformed ELF header: unknown byte order 3");
}

TEST_F(ElfInspectorTest, NotASharedObject) {
    for (const Elf64_Half type : {Elf64_Half{ET_REL}, Elf64_Half{ET_EXEC}}) {
        Bytes bytes = single_;
        Elf64_Ehdr eh = header_of(bytes);
        eh.e_type = type;
        put(bytes, 0, eh);
        const ElfInspection r = inspect_copy(bytes);
        ASSERT_TRUE(r.info.has_value()) << r.error;
        EXPECT_FALSE(r.info->shared_object);
        EXPECT_EQ(loadability_problem(*r.info), "not a shared object");
    }
}

TEST(ElfInspectorExecutables, PositionIndependentExecutableIsNotASharedObject) {
    // PIE executables are ET_DYN, but DT_FLAGS_1 marks them and dlopen refuses them.
    for (const fs::path& path : {fs::path("/proc/self/exe"), fs::path("/bin/true")}) {
        if (!fs::exists(path)) continue;
        const ElfInspection r = inspect_elf(path);
        ASSERT_TRUE(r.info.has_value()) << path << ": " << r.error;
        EXPECT_EQ(r.info->machine, benchhost::host_machine()) << path;
        EXPECT_FALSE(r.info->shared_object) << path;
        EXPECT_TRUE(r.info->entry_points.empty()) << path;
        EXPECT_EQ(loadability_problem(*r.info), "not a shared object") << path;
    }
}

TEST(ElfInspectorLoadability, Messages) {
    ElfInfo info;
    info.machine = benchhost::host_machine();
    info.bits = benchhost::host_bits();
    info.shared_object = true;
    EXPECT_EQ(loadability_problem(info), "");
    info.bits = benchhost::host_bits() == 64 ? 32 : 64;
    EXPECT_EQ(loadability_problem(info), "built for " + info.machine + " (" + std::to_string(info.bits) +
                                             "-bit), host is " + benchhost::host_machine() + " (" +
                                             std::to_string(benchhost::host_bits()) + "-bit)");
    info.shared_object = false;
    EXPECT_EQ(loadability_problem(info), "not a shared object");
}

// ---------------------------------------------------------------- patched symbols

TEST_F(ElfInspectorTest, PluginInfoWithWrongMagic) {
    const auto sym_off = dynsym_entry_offset(single_, bench::plugin_info_symbol);
    ASSERT_TRUE(sym_off.has_value());
    const std::size_t file_off = symbol_file_offset(single_, symbol_at(single_, *sym_off));
    ASSERT_EQ(get<std::uint32_t>(single_, file_off), bench::plugin_magic);

    Bytes bytes = single_;
    put<std::uint32_t>(bytes, file_off, 0x12345678);
    const ElfInspection r = inspect_copy(bytes);
    ASSERT_TRUE(r.info.has_value()) << r.error;
    EXPECT_FALSE(r.info->plugin_info.has_value());
    EXPECT_EQ(r.info->plugin_info_error, "bench_plugin_info has the wrong magic 0x12345678");
    EXPECT_EQ(r.info->entry_points, std::vector<std::string>{"run_benchmark"});
}

TEST_F(ElfInspectorTest, PluginInfoOfAnotherSize) {
    const auto sym_off = dynsym_entry_offset(single_, bench::plugin_info_symbol);
    ASSERT_TRUE(sym_off.has_value());
    const Elf64_Sym original = symbol_at(single_, *sym_off);
    ASSERT_EQ(original.st_size, sizeof(bench::PluginInfo));

    // Only the handshake: magic and ABI are read, everything else stays zero.
    Bytes bytes = single_;
    Elf64_Sym sym = original;
    sym.st_size = 8;
    put(bytes, *sym_off, sym);
    ElfInspection r = inspect_copy(bytes);
    ASSERT_TRUE(r.info.has_value()) << r.error;
    ASSERT_TRUE(r.info->plugin_info.has_value()) << r.info->plugin_info_error;
    EXPECT_EQ(r.info->plugin_info->magic, bench::plugin_magic);
    EXPECT_EQ(r.info->plugin_info->abi_major, bench::abi_major);
    EXPECT_EQ(r.info->plugin_info->abi_minor, bench::abi_minor);
    EXPECT_EQ(r.info->plugin_info->info_size, 0U);
    EXPECT_STREQ(r.info->plugin_info->name, "");

    // Part of the name.
    sym.st_size = offsetof(bench::PluginInfo, name) + 7;
    put(bytes, *sym_off, sym);
    r = inspect_copy(bytes);
    ASSERT_TRUE(r.info.has_value() && r.info->plugin_info.has_value()) << r.error;
    EXPECT_EQ(r.info->plugin_info->info_size, sizeof(bench::PluginInfo));
    EXPECT_STREQ(r.info->plugin_info->name, "fixture");
    EXPECT_STREQ(r.info->plugin_info->version, "");

    // Too small for the handshake.
    sym.st_size = 4;
    put(bytes, *sym_off, sym);
    r = inspect_copy(bytes);
    ASSERT_TRUE(r.info.has_value()) << r.error;
    EXPECT_FALSE(r.info->plugin_info.has_value());
    EXPECT_EQ(r.info->plugin_info_error, "bench_plugin_info is too small (4 bytes, at least 8 expected)");

    // Larger than the section that holds it.
    sym.st_size = 1U << 30;
    put(bytes, *sym_off, sym);
    r = inspect_copy(bytes);
    ASSERT_TRUE(r.info.has_value()) << r.error;
    EXPECT_FALSE(r.info->plugin_info.has_value());
    EXPECT_TRUE(r.info->plugin_info_error.starts_with("bench_plugin_info extends past the end of "))
        << r.info->plugin_info_error;
}

TEST_F(ElfInspectorTest, PluginInfoOfAnOlderMinorHasNoBuild) {
    const auto sym_off = dynsym_entry_offset(single_, bench::plugin_info_symbol);
    ASSERT_TRUE(sym_off.has_value());
    const Elf64_Sym original = symbol_at(single_, *sym_off);
    const std::size_t file_off = symbol_file_offset(single_, original);
    ASSERT_EQ(get<std::uint32_t>(single_, file_off), bench::plugin_magic);
    const std::size_t info_size_off = file_off + offsetof(bench::PluginInfo, info_size);

    // The layout of ABI 2.1: the symbol ends where `build` would start.
    Bytes bytes = single_;
    Elf64_Sym sym = original;
    sym.st_size = bench::plugin_info_size_without_build;
    put(bytes, *sym_off, sym);
    put<std::uint32_t>(bytes, info_size_off, bench::plugin_info_size_without_build);
    ElfInspection r = inspect_copy(bytes);
    ASSERT_TRUE(r.info.has_value() && r.info->plugin_info.has_value()) << r.error;
    EXPECT_EQ(r.info->plugin_info->info_size, bench::plugin_info_size_without_build);
    EXPECT_STREQ(r.info->plugin_info->name, "fixture_single");
    EXPECT_EQ(r.info->plugin_info->build.flags, 0);
    EXPECT_STREQ(r.info->plugin_info->build.compiler, "");

    // The symbol is larger but info_size says the older layout: what follows it is not
    // the plugin's build.
    put(bytes, *sym_off, original);
    r = inspect_copy(bytes);
    ASSERT_TRUE(r.info.has_value() && r.info->plugin_info.has_value()) << r.error;
    EXPECT_EQ(r.info->plugin_info->build.flags, 0);
    EXPECT_STREQ(r.info->plugin_info->build.compiler, "");
}

TEST_F(ElfInspectorTest, PluginInfoOutsideAnySectionOrNotAnObject) {
    const auto sym_off = dynsym_entry_offset(single_, bench::plugin_info_symbol);
    ASSERT_TRUE(sym_off.has_value());
    const Elf64_Sym original = symbol_at(single_, *sym_off);

    Bytes bytes = single_;
    Elf64_Sym sym = original;
    sym.st_value = 0x7fff00000000;
    put(bytes, *sym_off, sym);
    ElfInspection r = inspect_copy(bytes);
    ASSERT_TRUE(r.info.has_value()) << r.error;
    EXPECT_FALSE(r.info->plugin_info.has_value());
    EXPECT_EQ(r.info->plugin_info_error, "bench_plugin_info lies in no section (address 0x7fff00000000)");

    // In .bss: no bytes in the file.
    const Elf64_Ehdr eh = header_of(bytes);
    for (std::size_t i = 0; i < eh.e_shnum; ++i) {
        const Elf64_Shdr sh = section_header(bytes, i);
        if (sh.sh_type != SHT_NOBITS || (sh.sh_flags & SHF_ALLOC) == 0 || sh.sh_size == 0) continue;
        sym = original;
        sym.st_value = sh.sh_addr;
        sym.st_size = std::min<Elf64_Xword>(sh.sh_size, 8);
        put(bytes, *sym_off, sym);
        r = inspect_copy(bytes);
        ASSERT_TRUE(r.info.has_value()) << r.error;
        EXPECT_FALSE(r.info->plugin_info.has_value());
        EXPECT_TRUE(r.info->plugin_info_error.starts_with("bench_plugin_info has no bytes in the file (it lies in "))
            << r.info->plugin_info_error;
        break;
    }

    sym = original;
    sym.st_info = make_st_info(STB_GLOBAL, STT_FUNC);
    put(bytes, *sym_off, sym);
    r = inspect_copy(bytes);
    ASSERT_TRUE(r.info.has_value()) << r.error;
    EXPECT_FALSE(r.info->plugin_info.has_value());
    EXPECT_EQ(r.info->plugin_info_error, "bench_plugin_info is not a data object");
}

TEST_F(ElfInspectorTest, OnlyDefinedExportedFunctionsAreEntryPoints) {
    const fs::path multi = multi_path;
    const Bytes original = read_bytes(multi);
    const auto alpha = dynsym_entry_offset(original, "benchmark_alpha");
    const auto beta = dynsym_entry_offset(original, "benchmark_beta");
    const auto gamma = dynsym_entry_offset(original, "benchmark_gamma");
    ASSERT_TRUE(alpha && beta && gamma);

    struct Case {
        const char* what;
        void (*patch)(Elf64_Sym&);
    };
    const Case cases[] = {
        {"undefined", [](Elf64_Sym& s) { s.st_shndx = SHN_UNDEF; }},
        {"local", [](Elf64_Sym& s) { s.st_info = make_st_info(STB_LOCAL, STT_FUNC); }},
        {"hidden", [](Elf64_Sym& s) { s.st_other = STV_HIDDEN; }},
        {"object", [](Elf64_Sym& s) { s.st_info = make_st_info(STB_GLOBAL, STT_OBJECT); }},
    };
    for (const Case& c : cases) {
        Bytes bytes = original;
        Elf64_Sym sym = symbol_at(bytes, *beta);
        c.patch(sym);
        put(bytes, *beta, sym);
        const ElfInspection r = inspect_copy(bytes);
        ASSERT_TRUE(r.info.has_value()) << c.what << ": " << r.error;
        EXPECT_EQ(r.info->entry_points, (std::vector<std::string>{"benchmark_alpha", "benchmark_gamma"})) << c.what;
    }

    // Weak binding and protected visibility still export.
    Bytes bytes = original;
    Elf64_Sym sym = symbol_at(bytes, *alpha);
    sym.st_info = make_st_info(STB_WEAK, STT_FUNC);
    put(bytes, *alpha, sym);
    sym = symbol_at(bytes, *gamma);
    sym.st_other = STV_PROTECTED;
    put(bytes, *gamma, sym);
    const ElfInspection r = inspect_copy(bytes);
    ASSERT_TRUE(r.info.has_value()) << r.error;
    EXPECT_EQ(r.info->entry_points, (std::vector<std::string>{"benchmark_alpha", "benchmark_beta", "benchmark_gamma"}));
}

// ---------------------------------------------------------------- random damage

TEST_F(ElfInspectorTest, RandomDamageNeverCrashes) {
    std::mt19937 rng(2024);
    const Elf64_Ehdr eh = header_of(single_);
    const std::size_t tables_end = eh.e_phoff + eh.e_phnum * sizeof(Elf64_Phdr);
    int well_formed = 0;
    for (int round = 0; round < 400; ++round) {
        Bytes bytes = single_;
        const int flips = 1 + static_cast<int>(rng() % 8);
        for (int k = 0; k < flips; ++k) {
            // Half of the damage goes to the headers, where it hurts most.
            std::size_t at = 0;
            switch (rng() % 3) {
                case 0:
                    at = rng() % tables_end;
                    break;
                case 1:
                    at = eh.e_shoff + rng() % (bytes.size() - eh.e_shoff);
                    break;
                default:
                    at = rng() % bytes.size();
                    break;
            }
            bytes[at] = static_cast<char>(rng() & 0xff);
        }
        const ElfInspection r = inspect_copy(bytes);
        EXPECT_NE(r.info.has_value(), !r.error.empty()) << "round " << round;
        if (r.info) ++well_formed;
    }
    // Most single-byte damage leaves a readable file; the point is that nothing crashed.
    EXPECT_GT(well_formed, 0);
}

}  // namespace
