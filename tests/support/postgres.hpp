// A throw-away PostgreSQL cluster for a test: initdb in a temporary folder, a server on
// a free port of 127.0.0.1 (and a socket in that folder), trust authentication, one
// database; stopped (pg_ctl stop -m immediate) and removed when the object goes, whatever
// the test did. A test process killed outright (SIGKILL) runs no destructor: a watchdog
// started with the server, in a session of its own, stops the server and removes its
// folder within a second of the test process's end. As root, the server runs as the
// `postgres` user (initdb refuses root).
//
//     PostgresCluster cluster;
//     if (!cluster.running()) GTEST_SKIP() << cluster.why_not();
//     open_history(cluster.url(), true);   // postgresql://127.0.0.1:PORT/bench
//
// The binaries: $BENCH_POSTGRES_BIN, else the newest /usr/lib/postgresql/*/bin (Debian's
// postgresql package), else initdb on the PATH.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace benchtest {

class PostgresCluster {
public:
    explicit PostgresCluster(const std::string& database = "bench") : database_(database) {
        bin_ = find_bin();
        if (bin_.empty()) {
            why_not_ = "PostgreSQL's initdb is not installed (Debian's postgresql package; or set BENCH_POSTGRES_BIN)";
            return;
        }
        if (geteuid() == 0) {
            const passwd* user = getpwnam("postgres");
            if (user == nullptr) {
                why_not_ = "running as root, and there is no postgres user to run the server as";
                return;
            }
            if (chown(dir_.path().c_str(), user->pw_uid, user->pw_gid) != 0) {
                why_not_ = "cannot give " + dir_.path().string() + " to the postgres user";
                return;
            }
            as_user_ = {"/usr/sbin/runuser", "-u", "postgres", "--"};
        }
        // The superuser is named as the user the tests run as, so that a URL without a
        // user name (postgresql://127.0.0.1:PORT/bench) connects.
        const passwd* me = getpwuid(geteuid());
        superuser_ = me != nullptr ? me->pw_name : "postgres";
        port_ = free_port();
        const fs::path data = dir_ / "data";
        const ProcessResult init = run({(bin_ / "initdb").string(), "-D", data.string(), "-A", "trust", "-U",
                                        superuser_, "-E", "UTF8", "--locale=C", "--no-sync"});
        if (init.exit_code != 0) {
            why_not_ = "initdb failed: " + init.err + init.out;
            return;
        }
        const ProcessResult start =
            run({(bin_ / "pg_ctl").string(), "-D", data.string(), "-l", (dir_ / "server.log").string(), "-o",
                 "-p " + std::to_string(port_) + " -k " + dir_.path().string() +
                     " -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off",
                 "-w", "-t", "30", "start"});
        started_ = true;  // even when pg_ctl says it failed: the destructor stops whatever runs
        start_watchdog();
        if (start.exit_code != 0) {
            why_not_ = "the PostgreSQL server did not start: " + start.err + start.out + server_log();
            return;
        }
        const ProcessResult create = createdb(database_);
        if (create.exit_code != 0) {
            why_not_ = "createdb failed: " + create.err;
            return;
        }
        running_ = true;
    }
    ~PostgresCluster() { stop(); }
    PostgresCluster(const PostgresCluster&) = delete;
    PostgresCluster& operator=(const PostgresCluster&) = delete;

    bool running() const { return running_; }
    const std::string& why_not() const { return why_not_; }
    int port() const { return port_; }
    /// postgresql://127.0.0.1:PORT/DATABASE
    std::string url(const std::string& database = "") const {
        return "postgresql://127.0.0.1:" + std::to_string(port_) + "/" + (database.empty() ? database_ : database);
    }
    /// Another empty database in the cluster.
    ProcessResult createdb(const std::string& name) {
        return run(
            {(bin_ / "createdb").string(), "-h", "127.0.0.1", "-p", std::to_string(port_), "-U", superuser_, name});
    }
    /// Runs `sql` with psql in `database`; out has the values, unaligned, one row a line.
    ProcessResult psql(const std::string& sql, const std::string& database = "") {
        return run({(bin_ / "psql").string(), "-X", "-q", "-t", "-A", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p",
                    std::to_string(port_), "-U", superuser_, "-d", database.empty() ? database_ : database, "-c", sql});
    }
    /// Runs the SQL file `file` (pg_dump's output, say) with psql in `database`. The file
    /// is copied into the cluster's folder first, where the server's user can read it.
    ProcessResult psql_file(const fs::path& file, const std::string& database = "") {
        const fs::path copy = dir_ / file.filename();
        fs::copy_file(file, copy, fs::copy_options::overwrite_existing);
        fs::permissions(
            copy, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read);
        return run({(bin_ / "psql").string(), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p",
                    std::to_string(port_), "-U", superuser_, "-d", database.empty() ? database_ : database, "-f",
                    copy.string()});
    }
    /// Puts `line` first in pg_hba.conf (who may connect, and how) and reloads the server.
    ProcessResult authenticate_first(const std::string& line) {
        const fs::path hba = dir_ / "data" / "pg_hba.conf";
        const std::string rest = read_file(hba);
        {
            std::ofstream out(hba, std::ios::trunc);
            out << line << "\n" << rest;
        }
        return psql("SELECT pg_reload_conf()");
    }
    /// Stops the server now (immediate shutdown); also done by the destructor.
    void stop() {
        if (!started_) return;
        started_ = running_ = false;
        run({(bin_ / "pg_ctl").string(), "-D", (dir_ / "data").string(), "-m", "immediate", "-w", "stop"});
        if (watchdog_ > 0) {
            kill(watchdog_, SIGKILL);
            waitpid(watchdog_, nullptr, 0);
            watchdog_ = -1;
        }
    }
    std::string server_log() const {
        std::error_code ec;
        return fs::exists(dir_ / "server.log", ec) ? read_file(dir_ / "server.log") : "";
    }

    /// A TCP port of 127.0.0.1 that nothing listens on now.
    static int free_port() {
        const int fd = socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        address.sin_port = 0;
        socklen_t length = sizeof address;
        int port = 0;
        if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
            getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0)
            port = ntohs(address.sin_port);
        close(fd);
        return port;
    }

private:
    /// A shell in a session of its own, its output to /dev/null (so that ctest does not
    /// wait for it), that waits for this process to end, then stops the server and removes
    /// the folder. stop() kills it first when the test ends normally.
    void start_watchdog() {
        std::string as_user;
        for (const std::string& word : as_user_) as_user += quoted(word) + " ";
        const std::string script = "while kill -0 " + std::to_string(getpid()) + " 2>/dev/null; do sleep 0.5; done; " +
                                   as_user + quoted((bin_ / "pg_ctl").string()) + " -D " +
                                   quoted((dir_ / "data").string()) + " -m immediate -w stop; rm -rf " +
                                   quoted(dir_.path().string());
        const char* argv[] = {"/bin/sh", "-c", script.c_str(), nullptr};
        const pid_t child = fork();
        if (child == 0) {
            setsid();
            const int null = open("/dev/null", O_RDWR);
            for (int fd = 0; fd <= 2; ++fd) dup2(null, fd);
            execv(argv[0], const_cast<char* const*>(argv));
            _exit(127);
        }
        watchdog_ = child;
    }

    /// `word` in single quotes for /bin/sh (history_e2e_tests do not see the host's util/shell_word.hpp).
    static std::string quoted(const std::string& word) {
        std::string out = "'";
        for (const char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
        return out + "'";
    }

    static fs::path find_bin() {
        if (const char* bin = std::getenv("BENCH_POSTGRES_BIN"); bin != nullptr && *bin != '\0')
            return fs::exists(fs::path(bin) / "initdb") ? fs::path(bin) : fs::path();
        std::error_code ec;
        fs::path best;
        int best_version = -1;
        for (const auto& entry : fs::directory_iterator("/usr/lib/postgresql", ec)) {
            const std::string name = entry.path().filename().string();
            const int version = std::atoi(name.c_str());
            if (version > best_version && fs::exists(entry.path() / "bin" / "initdb", ec)) {
                best_version = version;
                best = entry.path() / "bin";
            }
        }
        if (!best.empty()) return best;
        if (const char* path = std::getenv("PATH"); path != nullptr) {
            std::string rest = path;
            for (std::size_t start = 0; start <= rest.size();) {
                const std::size_t end = std::min(rest.find(':', start), rest.size());
                const fs::path dir = rest.substr(start, end - start);
                if (!dir.empty() && fs::exists(dir / "initdb", ec)) return dir;
                start = end + 1;
            }
        }
        return {};
    }

    ProcessResult run(std::vector<std::string> argv) {
        argv.insert(argv.begin(), as_user_.begin(), as_user_.end());
        return run_process(argv, dir_.path());
    }

    std::string database_;
    TempDir dir_;
    fs::path bin_;
    std::vector<std::string> as_user_;
    std::string superuser_;
    int port_ = 0;
    bool started_ = false, running_ = false;
    pid_t watchdog_ = -1;  // start_watchdog()'s shell
    std::string why_not_;
};

}  // namespace benchtest
