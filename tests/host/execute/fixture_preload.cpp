// libfixture_preload.so: a library for a worker's parent to load ahead
// (worker_server_test.cpp). Its static initializer counts its loads in this process,
// remembers which process loaded it and the value of FIXTURE_PRELOAD_TAG then, appends
// "<pid> <tag>" to the file named by FIXTURE_PRELOAD_LOG, and aborts when
// FIXTURE_PRELOAD_CRASH is set (a parent that crashes while loading).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

int loads = 0;
pid_t loader = 0;
char tag[64] = "";

struct RecordLoad {
    RecordLoad() {
        ++loads;
        loader = getpid();
        if (const char* value = std::getenv("FIXTURE_PRELOAD_TAG")) std::snprintf(tag, sizeof tag, "%s", value);
        if (const char* log = std::getenv("FIXTURE_PRELOAD_LOG")) {
            if (std::FILE* out = std::fopen(log, "a")) {
                std::fprintf(out, "%d %s\n", static_cast<int>(loader), tag);
                std::fclose(out);
            }
        }
        if (std::getenv("FIXTURE_PRELOAD_CRASH") != nullptr) std::abort();
    }
} record_load;

}  // namespace

extern "C" __attribute__((visibility("default"))) int fixture_preload_loads() { return loads; }
extern "C" __attribute__((visibility("default"))) int fixture_preload_loader() { return static_cast<int>(loader); }
extern "C" __attribute__((visibility("default"))) const char* fixture_preload_tag() { return tag; }
