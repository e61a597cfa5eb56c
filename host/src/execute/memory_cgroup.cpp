#include "execute/memory_cgroup.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace fs = std::filesystem;

namespace benchhost {

namespace {

std::string read_text(const fs::path& file) {
    std::ifstream in(file);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

/// Writes `value` into a cgroup file; errno's reason when it cannot.
std::string write_value(const fs::path& file, const std::string& value) {
    const int fd = open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return std::strerror(errno);
    const ssize_t n = write(fd, value.data(), value.size());
    const int error = n < 0 ? errno : 0;
    close(fd);
    if (n < 0) return std::strerror(error);
    return "";
}

/// The host's cgroup path for `version` from /proc/self/cgroup: "0::/a/b" (v2) or
/// "4:memory:/a/b" (v1, the memory controller's hierarchy); empty when not listed.
std::string own_path(const std::string& proc_cgroup, int version) {
    std::istringstream lines(proc_cgroup);
    for (std::string line; std::getline(lines, line);) {
        const auto first = line.find(':');
        const auto second = line.find(':', first + 1);
        if (first == std::string::npos || second == std::string::npos) continue;
        const std::string controllers = line.substr(first + 1, second - first - 1);
        const std::string path = line.substr(second + 1);
        if (version == 2 && line.substr(0, first) == "0" && controllers.empty()) return path;
        if (version == 1) {
            std::istringstream names(controllers);
            for (std::string name; std::getline(names, name, ',');)
                if (name == "memory") return path;
        }
    }
    return "";
}

bool lists_memory(const std::string& controllers) {
    std::istringstream words(controllers);
    for (std::string word; words >> word;)
        if (word == "memory") return true;
    return false;
}

/// The value of `key` in a cgroup file of "key value" lines; -1 when absent.
long long counter(const fs::path& file, const std::string& key) {
    std::istringstream lines(read_text(file));
    for (std::string name; lines >> name;) {
        long long value = 0;
        if (!(lines >> value)) break;
        if (name == key) return value;
    }
    return -1;
}

/// The host's pid in the name of a cgroup it made ("benchhost-<pid>-<n>", or
/// "benchhost-probe-<pid>"); 0 for another name.
pid_t maker_of(const std::string& name) {
    std::string rest;
    if (name.starts_with("benchhost-probe-")) rest = name.substr(16);
    else if (name.starts_with("benchhost-")) rest = name.substr(10, name.find('-', 10) - 10);
    else return 0;
    if (rest.empty() || rest.size() > 9 || rest.find_first_not_of("0123456789") != std::string::npos) return 0;
    return static_cast<pid_t>(std::stol(rest));
}

}  // namespace

MemoryCgroups MemoryCgroups::find(const fs::path& root, const fs::path& proc_cgroup) {
    MemoryCgroups found;
    const std::string membership = read_text(proc_cgroup);
    fs::path parent;
    int version = 0;
    std::error_code ec;
    if (fs::exists(root / "cgroup.controllers", ec)) {
        const std::string own = own_path(membership, 2);
        parent = root / fs::path(own).relative_path();
        if (own.empty() || !lists_memory(read_text(parent / "cgroup.controllers"))) {
            found.why_not_ =
                "cgroup v2 at " + root.string() + ": no memory controller for this process's cgroup " +
                (own.empty() ? std::string("(not listed in ") + proc_cgroup.string() + ")" : parent.string());
            return found;
        }
        // Children get the controller only where cgroup.subtree_control enables it; the
        // kernel refuses that to a cgroup with processes of its own, other than the root.
        if (!lists_memory(read_text(parent / "cgroup.subtree_control"))) {
            const std::string error = write_value(parent / "cgroup.subtree_control", "+memory");
            if (!error.empty() || !lists_memory(read_text(parent / "cgroup.subtree_control"))) {
                found.why_not_ =
                    "cgroup v2: cannot enable the memory controller for the children of " + parent.string() +
                    " (cgroup.subtree_control: " + (error.empty() ? std::string("not enabled") : error) + ")";
                return found;
            }
        }
        version = 2;
    } else {
        const std::string own = own_path(membership, 1);
        if (own.empty() || !fs::exists(root / "memory" / "memory.limit_in_bytes", ec)) {
            found.why_not_ = "no memory cgroup controller under " + root.string() + " (neither cgroup v2 nor v1's " +
                             (root / "memory").string() + ")";
            return found;
        }
        parent = root / "memory" / fs::path(own).relative_path();
        version = 1;
    }
    found.version_ = version;
    found.parent_ = parent;
    // Tried once: a child made, limited and removed.
    try {
        const fs::path probe = found.create("benchhost-probe-" + std::to_string(getpid()), 64);
        found.remove(probe);
    } catch (const std::exception& e) {
        found.version_ = 0;
        found.why_not_ = e.what();
        return found;
    }
    found.remove_stale();
    return found;
}

const MemoryCgroups& MemoryCgroups::system() {
    static const MemoryCgroups cgroups = [] {
        if (const char* use = std::getenv("BENCHHOST_MEMORY_CGROUP"); use != nullptr && std::string(use) == "0") {
            MemoryCgroups none;
            none.why_not_ = "BENCHHOST_MEMORY_CGROUP=0";
            return none;
        }
        return find("/sys/fs/cgroup", "/proc/self/cgroup");
    }();
    return cgroups;
}

std::string MemoryCgroups::limit_file() const {
    return version_ == 2 ? "cgroup v2 memory.max" : "cgroup v1 memory.limit_in_bytes";
}

fs::path MemoryCgroups::create(const std::string& name, std::size_t mib) const {
    const fs::path dir = parent_ / name;
    std::error_code ec;
    fs::create_directory(dir, ec);
    if (ec)
        throw std::runtime_error("cgroup v" + std::to_string(version_) + ": cannot make " + dir.string() + ": " +
                                 ec.message());
    const std::string bytes = std::to_string(static_cast<unsigned long long>(mib) << 20);
    const auto set = [&](const char* file, const std::string& value, bool required) {
        if (!required && !fs::exists(dir / file, ec)) return;
        if (const std::string error = write_value(dir / file, value); !error.empty()) {
            remove(dir);
            throw std::runtime_error("cgroup v" + std::to_string(version_) + ": cannot write " + value + " to " +
                                     (dir / file).string() + ": " + error);
        }
    };
    if (version_ == 2) {
        set("memory.max", bytes, true);
        set("memory.swap.max", "0", false);  // over the limit: killed, not swapped out
    } else {
        set("memory.limit_in_bytes", bytes, true);
        set("memory.memsw.limit_in_bytes", bytes, false);  // memory and swap together: no swap
    }
    return dir;
}

bool MemoryCgroups::oom_killed(const fs::path& dir) const {
    return counter(dir / (version_ == 2 ? "memory.events" : "memory.oom_control"), "oom_kill") > 0;
}

void MemoryCgroups::remove(const fs::path& dir) const {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    while (rmdir(dir.c_str()) != 0) {
        if (errno == ENOTEMPTY) {  // a folder of plain files, as tests make: cgroupfs never says so
            std::error_code ec;
            fs::remove_all(dir, ec);
            return;
        }
        // EBUSY while the last processes of the worker's group are still exiting.
        if (errno != EBUSY || std::chrono::steady_clock::now() > deadline) return;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
}

void MemoryCgroups::remove_stale() const {
    std::error_code ec;
    for (const fs::directory_entry& entry : fs::directory_iterator(parent_, ec)) {
        const pid_t maker = maker_of(entry.path().filename().string());
        if (maker <= 0 || !entry.is_directory(ec)) continue;
        if (kill(maker, 0) == 0 || errno != ESRCH) continue;  // its host runs (or cannot be told)
        if (rmdir(entry.path().c_str()) != 0 && errno == ENOTEMPTY) fs::remove_all(entry.path(), ec);
    }
}

bool join_cgroup(const fs::path& dir, std::string& error) {
    error = write_value(dir / "cgroup.procs", "0");
    return error.empty();
}

}  // namespace benchhost
