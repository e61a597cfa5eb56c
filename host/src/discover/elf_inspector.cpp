// Inspects a shared object's ELF file without loading it.
//
// The file is read whole into memory. Before libelf sees it, the ELF header, the
// program and section header tables, every PT_LOAD segment and every section with file
// contents are checked against the file's size here, so that a truncated or damaged
// file gets a precise message ("truncated: segment 2 ends at byte N, file has M
// bytes") instead of libelf's generic one. libelf then reads .dynsym, .dynamic and the
// string tables; its accessors are bounds-checked too.
#include "discover/elf_inspector.hpp"

#include <fcntl.h>
#include <gelf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <string_view>
#include <system_error>
#include <type_traits>

namespace benchhost {
namespace {

// ---------------------------------------------------------------- small helpers

std::string format_hex(std::uint64_t value) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(value));
    return buf;
}

std::string truncated(std::string_view what, std::uint64_t end, std::size_t file_size) {
    return "truncated: " + std::string(what) + " ends at byte " + std::to_string(end) + ", file has " +
           std::to_string(file_size) + " bytes";
}

/// offset + count * entry_size, or false on overflow.
bool checked_end(std::uint64_t offset, std::uint64_t count, std::uint64_t entry_size, std::uint64_t& end) {
    std::uint64_t bytes = 0;
    if (__builtin_mul_overflow(count, entry_size, &bytes)) return false;
    return !__builtin_add_overflow(offset, bytes, &end);
}

// The <elf.h> macros for st_info and st_other expand to C casts.
unsigned symbol_bind(unsigned char info) { return static_cast<unsigned>(info) >> 4; }
unsigned symbol_type(unsigned char info) { return static_cast<unsigned>(info) & 0xfU; }
unsigned symbol_visibility(unsigned char other) { return static_cast<unsigned>(other) & 0x3U; }

template <class T>
T byte_swap(T value) {
    static_assert(std::is_unsigned_v<T>);
    if constexpr (sizeof(T) == 1) {
        return value;
    } else if constexpr (sizeof(T) == 2) {
        return static_cast<T>(__builtin_bswap16(value));
    } else if constexpr (sizeof(T) == 4) {
        return static_cast<T>(__builtin_bswap32(value));
    } else {
        static_assert(sizeof(T) == 8);
        return static_cast<T>(__builtin_bswap64(value));
    }
}

constexpr bool host_is_little_endian() { return __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__; }

// ---------------------------------------------------------------- reading the file

struct FileBytes {
    std::vector<char> bytes;
    std::string error;
};

FileBytes read_whole_file(const std::filesystem::path& path) {
    FileBytes out;
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        out.error = "cannot open: " + std::error_code(errno, std::generic_category()).message();
        return out;
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        out.error = "cannot stat: " + std::error_code(errno, std::generic_category()).message();
        ::close(fd);
        return out;
    }
    if (!S_ISREG(st.st_mode)) {
        out.error = "not a regular file";
        ::close(fd);
        return out;
    }
    // The size fstat reports is only a hint: the bytes actually read are what counts.
    std::size_t used = 0;
    out.bytes.resize(std::max<std::size_t>(static_cast<std::size_t>(st.st_size), 4096));
    for (;;) {
        if (used == out.bytes.size()) out.bytes.resize(out.bytes.size() * 2);
        const ssize_t got = ::read(fd, out.bytes.data() + used, out.bytes.size() - used);
        if (got < 0) {
            if (errno == EINTR) continue;
            out.error = "cannot read: " + std::error_code(errno, std::generic_category()).message();
            out.bytes.clear();
            ::close(fd);
            return out;
        }
        if (got == 0) break;
        used += static_cast<std::size_t>(got);
    }
    ::close(fd);
    out.bytes.resize(used);
    return out;
}

std::string not_elf_message(const std::vector<char>& bytes) {
    // Show the start of the file: as text when it reads as text, else as hex bytes.
    std::string text;
    bool printable = true;
    for (std::size_t i = 0; i < bytes.size() && i < 8; ++i) {
        const auto c = static_cast<unsigned char>(bytes[i]);
        if (c == '\n' || c == '\r') break;
        if (c < 0x20 || c > 0x7e) {
            printable = false;
            break;
        }
        text += static_cast<char>(c);
    }
    if (printable && !text.empty()) return "not an ELF file (starts with \"" + text + "\")";
    std::string hex;
    for (std::size_t i = 0; i < bytes.size() && i < 4; ++i) {
        char buf[4];
        std::snprintf(buf, sizeof buf, "%02x", static_cast<unsigned>(static_cast<unsigned char>(bytes[i])));
        if (!hex.empty()) hex += ' ';
        hex += buf;
    }
    return "not an ELF file (starts with bytes " + hex + ")";
}

// ---------------------------------------------------------------- raw header checks

// The fields this file needs, in host byte order and 64-bit width whatever the class.
struct Header {
    std::uint16_t type = 0;
    std::uint16_t machine = 0;
    std::uint64_t phoff = 0;
    std::uint64_t shoff = 0;
    std::uint16_t ehsize = 0;
    std::uint16_t phentsize = 0;
    std::uint16_t phnum = 0;
    std::uint16_t shentsize = 0;
    std::uint16_t shnum = 0;
};

struct Segment {
    std::uint32_t type = 0;
    std::uint64_t offset = 0;
    std::uint64_t filesz = 0;
};

struct Section {
    std::uint32_t type = 0;
    std::uint64_t offset = 0;
    std::uint64_t size = 0;
    std::uint32_t link = 0;
    std::uint32_t info = 0;
};

class RawReader {
public:
    RawReader(const std::vector<char>& bytes, bool swap) : bytes_(bytes), swap_(swap) {}

    template <class T>
    T fix(T value) const {
        return swap_ ? byte_swap(value) : value;
    }

    // Every caller has checked that [offset, offset + sizeof(Struct)) lies in the file.
    template <class Struct>
    Struct load(std::uint64_t offset) const {
        Struct s;
        std::memcpy(&s, bytes_.data() + offset, sizeof s);
        return s;
    }

    template <class Ehdr>
    Header header() const {
        const auto e = load<Ehdr>(0);
        Header h;
        h.type = fix(e.e_type);
        h.machine = fix(e.e_machine);
        h.phoff = fix(e.e_phoff);
        h.shoff = fix(e.e_shoff);
        h.ehsize = fix(e.e_ehsize);
        h.phentsize = fix(e.e_phentsize);
        h.phnum = fix(e.e_phnum);
        h.shentsize = fix(e.e_shentsize);
        h.shnum = fix(e.e_shnum);
        return h;
    }

    template <class Phdr>
    Segment segment(std::uint64_t offset) const {
        const auto p = load<Phdr>(offset);
        return {fix(p.p_type), fix(p.p_offset), fix(p.p_filesz)};
    }

    template <class Shdr>
    Section section(std::uint64_t offset) const {
        const auto s = load<Shdr>(offset);
        return {fix(s.sh_type), fix(s.sh_offset), fix(s.sh_size), fix(s.sh_link), fix(s.sh_info)};
    }

private:
    const std::vector<char>& bytes_;
    bool swap_;
};

/// Checks the headers and that everything the headers point at lies in the file.
/// Returns an error message, or "" when the file is safe to hand to libelf.
template <class Ehdr, class Phdr, class Shdr>
std::string check_layout(const std::vector<char>& bytes, bool swap, Header& header) {
    const std::size_t size = bytes.size();
    const int bits = sizeof(Ehdr) == sizeof(Elf64_Ehdr) ? 64 : 32;
    if (size < sizeof(Ehdr)) return truncated("ELF header", sizeof(Ehdr), size);

    const RawReader raw(bytes, swap);
    header = raw.header<Ehdr>();
    if (header.ehsize != sizeof(Ehdr)) {
        return "malformed ELF header: header size is " + std::to_string(header.ehsize) + " bytes, a " +
               std::to_string(bits) + "-bit header has " + std::to_string(sizeof(Ehdr));
    }

    // Section header table, with the extended numbering of gABI: when e_shnum is 0 the
    // count is in section 0's sh_size, when e_phnum is PN_XNUM it is in its sh_info.
    std::uint64_t shnum = header.shnum;
    std::uint64_t phnum = header.phnum;
    std::vector<Section> sections;
    if (header.shoff != 0) {
        if (header.shentsize != sizeof(Shdr)) {
            return "malformed ELF header: section header size is " + std::to_string(header.shentsize) +
                   " bytes, expected " + std::to_string(sizeof(Shdr));
        }
        std::uint64_t end = 0;
        if (!checked_end(header.shoff, 1, sizeof(Shdr), end))
            return "malformed ELF header: impossible section header offset";
        if (end > size) return truncated("section header table", end, size);
        const Section first = raw.section<Shdr>(header.shoff);
        if (shnum == 0) shnum = first.size;
        if (phnum == PN_XNUM) phnum = first.info;
        if (!checked_end(header.shoff, shnum, sizeof(Shdr), end)) {
            return "malformed ELF header: impossible section header table (" + std::to_string(shnum) + " entries)";
        }
        if (end > size) return truncated("section header table", end, size);
        sections.reserve(shnum);
        for (std::uint64_t i = 0; i < shnum; ++i)
            sections.push_back(raw.section<Shdr>(header.shoff + i * sizeof(Shdr)));
    } else if (header.shnum != 0) {
        return "malformed ELF header: " + std::to_string(header.shnum) + " section headers at offset 0";
    } else if (phnum == PN_XNUM) {
        return "malformed ELF header: extended program header count without section headers";
    }

    // Program header table.
    std::vector<Segment> segments;
    if (phnum != 0) {
        if (header.phentsize != sizeof(Phdr)) {
            return "malformed ELF header: program header size is " + std::to_string(header.phentsize) +
                   " bytes, expected " + std::to_string(sizeof(Phdr));
        }
        std::uint64_t end = 0;
        if (header.phoff == 0 || !checked_end(header.phoff, phnum, sizeof(Phdr), end)) {
            return "malformed ELF header: impossible program header table";
        }
        if (end > size) return truncated("program header table", end, size);
        segments.reserve(phnum);
        for (std::uint64_t i = 0; i < phnum; ++i)
            segments.push_back(raw.segment<Phdr>(header.phoff + i * sizeof(Phdr)));
    }

    // What the dynamic loader maps: a truncated file makes dlopen die with SIGBUS.
    for (std::size_t i = 0; i < segments.size(); ++i) {
        const Segment& s = segments[i];
        if (s.type != PT_LOAD) continue;
        std::uint64_t end = 0;
        if (!checked_end(s.offset, 1, s.filesz, end))
            return "malformed: segment " + std::to_string(i) + " has an impossible size";
        if (end > size) return truncated("segment " + std::to_string(i), end, size);
    }
    // What libelf reads.
    for (std::size_t i = 0; i < sections.size(); ++i) {
        const Section& s = sections[i];
        if (s.type == SHT_NULL || s.type == SHT_NOBITS) continue;
        std::uint64_t end = 0;
        if (!checked_end(s.offset, 1, s.size, end))
            return "malformed: section " + std::to_string(i) + " has an impossible size";
        if (end > size) return truncated("section " + std::to_string(i), end, size);
    }
    return "";
}

// ---------------------------------------------------------------- libelf

void init_libelf() {
    static const bool ready = elf_version(EV_CURRENT) != EV_NONE;
    (void)ready;
}

struct ElfCloser {
    void operator()(Elf* elf) const { elf_end(elf); }
};

std::string libelf_error(std::string_view what) {
    const char* msg = elf_errmsg(-1);
    return "malformed ELF file: " + std::string(what) + (msg != nullptr ? std::string(": ") + msg : std::string());
}

std::string machine_name(unsigned machine) {
    switch (machine) {
        case EM_X86_64:
            return "x86_64";
        case EM_AARCH64:
            return "aarch64";
        case EM_386:
            return "i386";
        case EM_ARM:
            return "arm";
        case EM_RISCV:
            return "riscv";
        case EM_PPC64:
            return "ppc64";
        case EM_PPC:
            return "ppc";
        case EM_S390:
            return "s390";
        default: {
            char buf[32];
            std::snprintf(buf, sizeof buf, "machine 0x%x", machine);
            return buf;
        }
    }
}

bool is_entry_point_name(std::string_view name) {
    const std::string_view prefix = bench::benchmark_symbol_prefix;
    return name == bench::run_benchmark_symbol || (name.size() > prefix.size() && name.starts_with(prefix));
}

std::string section_name(Elf* elf, const GElf_Shdr& shdr) {
    std::size_t shstrndx = 0;
    if (elf_getshdrstrndx(elf, &shstrndx) != 0) return "";
    const char* name = elf_strptr(elf, shstrndx, shdr.sh_name);
    return name != nullptr ? name : "";
}

/// Where the bytes of the exported data object `symbol` lie in the file: [begin, end),
/// or why it has none.
struct ObjectBytes {
    std::uint64_t begin = 0, end = 0;
    std::string error;
};

ObjectBytes object_bytes(Elf* elf, const std::vector<char>& bytes, const GElf_Sym& sym, const std::string& symbol) {
    const std::uint64_t address = sym.st_value;
    Elf_Scn* scn = nullptr;
    while ((scn = elf_nextscn(elf, scn)) != nullptr) {
        GElf_Shdr shdr;
        if (gelf_getshdr(scn, &shdr) == nullptr) continue;
        if ((shdr.sh_flags & SHF_ALLOC) == 0 || shdr.sh_type == SHT_NULL) continue;
        if (address < shdr.sh_addr || address - shdr.sh_addr >= shdr.sh_size) continue;

        const std::string name = section_name(elf, shdr);
        const std::string where = name.empty() ? "its section" : name;
        if (shdr.sh_type == SHT_NOBITS) return {0, 0, symbol + " has no bytes in the file (it lies in " + where + ")"};
        const std::uint64_t in_section = address - shdr.sh_addr;
        if (sym.st_size > shdr.sh_size - in_section) return {0, 0, symbol + " extends past the end of " + where};
        std::uint64_t begin = 0;
        std::uint64_t end = 0;
        if (!checked_end(shdr.sh_offset, 1, in_section, begin) || !checked_end(begin, 1, sym.st_size, end) ||
            end > bytes.size())
            return {0, 0, symbol + " lies outside the file"};
        return {begin, end, {}};
    }
    return {0, 0, symbol + " lies in no section (address " + format_hex(address) + ")"};
}

/// Reads bench_plugin_info's bytes out of the file. Fills info.plugin_info or
/// info.plugin_info_error.
void read_plugin_info(Elf* elf, const std::vector<char>& bytes, bool swap, const GElf_Sym& sym, ElfInfo& info) {
    const std::string symbol = bench::plugin_info_symbol;
    if (symbol_type(sym.st_info) != STT_OBJECT) {
        info.plugin_info_error = symbol + " is not a data object";
        return;
    }
    constexpr std::uint64_t handshake_bytes = 8;  // magic, abi_major, abi_minor
    if (sym.st_size < handshake_bytes) {
        info.plugin_info_error = symbol + " is too small (" + std::to_string(sym.st_size) + " bytes, at least " +
                                 std::to_string(handshake_bytes) + " expected)";
        return;
    }
    const ObjectBytes found = object_bytes(elf, bytes, sym, symbol);
    if (!found.error.empty()) {
        info.plugin_info_error = found.error;
        return;
    }
    bench::PluginInfo pi{};
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(sym.st_size, sizeof pi));
    std::memcpy(&pi, bytes.data() + found.begin, n);
    pi.magic = swap ? byte_swap(pi.magic) : pi.magic;
    pi.abi_major = swap ? byte_swap(pi.abi_major) : pi.abi_major;
    pi.abi_minor = swap ? byte_swap(pi.abi_minor) : pi.abi_minor;
    pi.info_size = swap ? byte_swap(pi.info_size) : pi.info_size;
    if (pi.magic != bench::plugin_magic) {
        char buf[80];
        std::snprintf(buf, sizeof buf, "%s has the wrong magic 0x%08x", bench::plugin_info_symbol,
                      static_cast<unsigned>(pi.magic));
        info.plugin_info_error = buf;
        return;
    }
    pi.sdk_version[sizeof pi.sdk_version - 1] = '\0';
    pi.name[sizeof pi.name - 1] = '\0';
    pi.version[sizeof pi.version - 1] = '\0';
    pi.axes[sizeof pi.axes - 1] = '\0';
    // Fields past the plugin's own layout (an older ABI minor's) are not its own.
    if (pi.info_size < offsetof(bench::PluginInfo, build) + sizeof pi.build) pi.build = {};
    pi.build.compiler[sizeof pi.build.compiler - 1] = '\0';
    info.plugin_info = pi;
}

void read_dynsym(Elf* elf, Elf_Scn* scn, const GElf_Shdr& shdr, const std::vector<char>& bytes, bool swap,
                 ElfInfo& info) {
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (data == nullptr) return;
    const std::size_t entry = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
    if (entry == 0) return;
    const std::size_t count = std::min<std::size_t>(data->d_size / entry, std::numeric_limits<int>::max());
    bool saw_plugin_info = false;
    for (std::size_t i = 1; i < count; ++i) {  // entry 0 is the null symbol
        GElf_Sym sym;
        if (gelf_getsym(data, static_cast<int>(i), &sym) == nullptr) break;
        if (sym.st_shndx == SHN_UNDEF) continue;
        const unsigned bind = symbol_bind(sym.st_info);
        if (bind != STB_GLOBAL && bind != STB_WEAK) continue;
        const unsigned visibility = symbol_visibility(sym.st_other);
        if (visibility != STV_DEFAULT && visibility != STV_PROTECTED) continue;
        const char* raw_name = elf_strptr(elf, shdr.sh_link, sym.st_name);
        if (raw_name == nullptr) continue;
        const std::string_view name = raw_name;

        if (symbol_type(sym.st_info) == STT_FUNC && is_entry_point_name(name)) {
            info.entry_points.emplace_back(name);
        } else if (name == bench::plugin_info_symbol && !saw_plugin_info) {
            saw_plugin_info = true;
            read_plugin_info(elf, bytes, swap, sym, info);
        } else if (name.starts_with(bench::benchmark_variants_prefix) && symbol_type(sym.st_info) == STT_OBJECT &&
                   sym.st_size == 1) {
            // A declaration that cannot be read leaves the benchmark with its plugin's variants.
            const ObjectBytes found = object_bytes(elf, bytes, sym, std::string(name));
            if (found.error.empty())
                info.benchmark_variants[std::string(
                    name.substr(std::string_view(bench::benchmark_variants_prefix).size()))] =
                    static_cast<std::uint8_t>(bytes[found.begin]);
        }
    }
    std::sort(info.entry_points.begin(), info.entry_points.end());
    info.entry_points.erase(std::unique(info.entry_points.begin(), info.entry_points.end()), info.entry_points.end());
}

/// Reads DT_NEEDED, DT_RPATH and DT_RUNPATH; returns whether DT_FLAGS_1 marks the file a
/// PIE executable.
bool read_dynamic(Elf* elf, Elf_Scn* scn, const GElf_Shdr& shdr, ElfInfo& info) {
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (data == nullptr) return false;
    const std::size_t entry = gelf_fsize(elf, ELF_T_DYN, 1, EV_CURRENT);
    if (entry == 0) return false;
    const std::size_t count = std::min<std::size_t>(data->d_size / entry, std::numeric_limits<int>::max());
    bool pie = false;
    for (std::size_t i = 0; i < count; ++i) {
        GElf_Dyn dyn;
        if (gelf_getdyn(data, static_cast<int>(i), &dyn) == nullptr || dyn.d_tag == DT_NULL) break;
        if (dyn.d_tag == DT_NEEDED) {
            const char* name = elf_strptr(elf, shdr.sh_link, dyn.d_un.d_val);
            if (name != nullptr) info.needed.emplace_back(name);
        } else if (dyn.d_tag == DT_RPATH || dyn.d_tag == DT_RUNPATH) {
            const char* paths = elf_strptr(elf, shdr.sh_link, dyn.d_un.d_val);
            for (std::string_view rest = paths != nullptr ? paths : ""; !rest.empty();) {
                const std::size_t colon = std::min(rest.find(':'), rest.size());
                if (colon > 0) info.run_paths.emplace_back(rest.substr(0, colon));
                rest.remove_prefix(std::min(colon + 1, rest.size()));
            }
        } else if (dyn.d_tag == DT_FLAGS_1 && (dyn.d_un.d_val & DF_1_PIE) != 0) {
            pie = true;
        }
    }
    return pie;
}

}  // namespace

ElfInspection inspect_elf(const std::filesystem::path& path) {
    ElfInspection result;
    try {
        FileBytes file = read_whole_file(path);
        if (!file.error.empty()) {
            result.error = file.error;
            return result;
        }
        std::vector<char>& bytes = file.bytes;
        const std::size_t size = bytes.size();
        if (size == 0) {
            result.error = "empty file";
            return result;
        }
        if (std::memcmp(bytes.data(), ELFMAG, std::min<std::size_t>(size, SELFMAG)) != 0) {
            result.error = not_elf_message(bytes);
            return result;
        }
        if (size < EI_NIDENT) {
            result.error = truncated("ELF identification", EI_NIDENT, size);
            return result;
        }
        const auto ident = [&](int i) {
            return static_cast<unsigned>(static_cast<unsigned char>(bytes[static_cast<std::size_t>(i)]));
        };
        const unsigned elf_class = ident(EI_CLASS);
        const unsigned data_encoding = ident(EI_DATA);
        if (elf_class != ELFCLASS32 && elf_class != ELFCLASS64) {
            result.error = "malformed ELF header: unknown class " + std::to_string(elf_class);
            return result;
        }
        if (data_encoding != ELFDATA2LSB && data_encoding != ELFDATA2MSB) {
            result.error = "malformed ELF header: unknown byte order " + std::to_string(data_encoding);
            return result;
        }
        if (ident(EI_VERSION) != EV_CURRENT) {
            result.error = "malformed ELF header: unknown ELF version " + std::to_string(ident(EI_VERSION));
            return result;
        }
        const bool swap = (data_encoding == ELFDATA2LSB) != host_is_little_endian();

        Header header;
        result.error = elf_class == ELFCLASS64 ? check_layout<Elf64_Ehdr, Elf64_Phdr, Elf64_Shdr>(bytes, swap, header)
                                               : check_layout<Elf32_Ehdr, Elf32_Phdr, Elf32_Shdr>(bytes, swap, header);
        if (!result.error.empty()) return result;

        init_libelf();
        std::unique_ptr<Elf, ElfCloser> elf(elf_memory(bytes.data(), bytes.size()));
        if (elf == nullptr) {
            result.error = libelf_error("libelf cannot read it");
            return result;
        }
        if (elf_kind(elf.get()) != ELF_K_ELF) {
            result.error = "malformed ELF file: libelf does not take it for an ELF file";
            return result;
        }

        ElfInfo info;
        info.machine = machine_name(header.machine);
        info.bits = elf_class == ELFCLASS64 ? 64 : 32;
        info.shared_object = header.type == ET_DYN;

        Elf_Scn* scn = nullptr;
        while ((scn = elf_nextscn(elf.get(), scn)) != nullptr) {
            GElf_Shdr shdr;
            if (gelf_getshdr(scn, &shdr) == nullptr) continue;
            if (shdr.sh_type == SHT_DYNSYM) {
                read_dynsym(elf.get(), scn, shdr, bytes, swap, info);
            } else if (shdr.sh_type == SHT_DYNAMIC) {
                // A position-independent executable is ET_DYN too, but dlopen refuses it.
                if (read_dynamic(elf.get(), scn, shdr, info)) info.shared_object = false;
            }
        }
        result.info = std::move(info);
    } catch (const std::exception& e) {  // std::bad_alloc, in practice
        result.info.reset();
        result.error = std::string("cannot inspect: ") + e.what();
    }
    return result;
}

std::string host_machine() {
#if defined(__x86_64__)
    return "x86_64";
#elif defined(__aarch64__)
    return "aarch64";
#elif defined(__i386__)
    return "i386";
#elif defined(__arm__)
    return "arm";
#elif defined(__riscv)
    return "riscv";
#elif defined(__powerpc64__)
    return "ppc64";
#elif defined(__powerpc__)
    return "ppc";
#elif defined(__s390__)
    return "s390";
#else
    return "unknown";
#endif
}

int host_bits() { return static_cast<int>(sizeof(void*) * 8); }

std::string loadability_problem(const ElfInfo& info) {
    if (!info.shared_object) return "not a shared object";
    if (info.machine != host_machine() || info.bits != host_bits()) {
        return "built for " + info.machine + " (" + std::to_string(info.bits) + "-bit), host is " + host_machine() +
               " (" + std::to_string(host_bits()) + "-bit)";
    }
    return "";
}

std::vector<std::string> linked_torch_libraries(const ElfInfo& info, const std::filesystem::path& plugin_dir) {
    namespace fs = std::filesystem;
    std::vector<std::string> libraries;
    for (const std::string& name : info.needed) {
        if (!(name.starts_with("libtorch") || name.starts_with("libc10")) || name.find(".so") == std::string::npos ||
            name.find('/') != std::string::npos)
            continue;
        std::string found;
        for (std::string folder : info.run_paths) {
            for (const std::string_view origin : {"${ORIGIN}", "$ORIGIN"})
                for (std::size_t at; (at = folder.find(origin)) != std::string::npos;)
                    folder.replace(at, origin.size(), plugin_dir.string());
            std::error_code ec;
            const fs::path candidate = fs::path(folder) / name;
            if (candidate.is_absolute() && fs::is_regular_file(candidate, ec)) {
                found = candidate.lexically_normal().string();
                break;
            }
        }
        if (found.empty()) return {};
        libraries.push_back(found);
    }
    std::sort(libraries.begin(), libraries.end());
    libraries.erase(std::unique(libraries.begin(), libraries.end()), libraries.end());
    return libraries;
}

}  // namespace benchhost
