// The AOTInductor compile: a child process exports and compiles, the worker loads the
// package (aot_inductor.hpp). A cache entry is a folder
//   <cache>/<model>-<mode>-<key>/
//     model.pt2     the package
//     key.txt       what the key was made of, one item a line (for people)
//     compile.json  {"compile_ms", "export_ms", "torch_version"} of the compile that made it
// made under a temporary name and renamed into place when complete, so that a worker
// killed mid-compile leaves no entry, and two workers compiling the same key at once
// both end with one entry.
#include <bench/torch/aot_inductor.hpp>
#include <bench/torch/device.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ATen/Parallel.h>
#include <rapidjson/document.h>
#include <torch/csrc/inductor/aoti_package/model_package_loader.h>
#include <torch/serialize.h>
#include <torch/version.h>

#if defined(BENCH_TORCH_WITH_CUDA)
#include <ATen/cuda/CUDAContext.h>
#endif

#include <bench/internal/environment/cache_dir.hpp>
#include <bench_embedded/aoti_compile_py.hpp>

#include <bench/clock.hpp>

extern char** environ;

namespace bench::libtorch {

namespace fs = std::filesystem;

namespace {

/// Inductor's options for `mode`, the one place they are set (the exporter applies them
/// as given; the cache key holds them): in every mode, freezing (the weights are
/// constants of an inference model, folded and prepacked, as torch.compile is told for
/// inference on the CPU); for max-autotune, torch.compile's max-autotune without CUDA
/// graphs, which AOTInductor does not take.
std::string inductor_options(const std::string& mode) {
    return mode == "max-autotune" ? R"({"freezing": true, "max_autotune": true, "coordinate_descent_tuning": true})"
                                  : R"({"freezing": true})";
}

struct Fnv {
    std::uint64_t h = 1469598103934665603ull;
    void add(const void* data, std::size_t n) {
        const auto* p = static_cast<const unsigned char*>(data);
        for (std::size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
    }
    void add(const std::string& s) { add(s.data(), s.size()); }
    std::string hex() const {
        char out[17];
        std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
        return out;
    }
};

std::string fnv_hex(const std::string& text) {
    Fnv f;
    f.add(text);
    return f.hex();
}

/// A digest of the bytes of every parameter and buffer, in the module's order.
std::string weights_digest(const torch::nn::Module& module) {
    Fnv f;
    auto add = [&f](const std::string& name, const torch::Tensor& t) {
        const torch::Tensor c = t.detach().to(torch::kCPU).contiguous();
        f.add(name);
        f.add(c.data_ptr(), static_cast<std::size_t>(c.numel()) * c.element_size());
    };
    for (const auto& item : module.named_parameters(true)) add(item.key(), item.value());
    for (const auto& item : module.named_buffers(true)) add(item.key(), item.value());
    return f.hex();
}

std::string shape_text(const torch::Tensor& t) {
    std::ostringstream out;
    out << t.scalar_type() << t.sizes();
    return out.str();
}

/// The device as the package depends on it: the type, and for CUDA the GPU's name and
/// compute capability (kernels are compiled for it).
std::string device_text(const torch::Device& device) {
    std::string text = device.is_cuda() ? "cuda" : device.str();
#if defined(BENCH_TORCH_WITH_CUDA)
    if (device.is_cuda()) {
        const auto* p = at::cuda::getDeviceProperties(device.has_index() ? device.index() : 0);
        text += std::string(" ") + p->name + " sm_" + std::to_string(p->major) + std::to_string(p->minor);
    }
#endif
    return text;
}

std::string torch_build() {
    std::string text = TORCH_VERSION;
#if defined(BENCH_TORCH_WITH_CUDA)
    text += " cuda";
#endif
    return text;
}

void write_file(const fs::path& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
    if (!out.flush()) throw std::runtime_error("cannot write " + path.string());
}

void write_bytes(const fs::path& path, const std::vector<char>& bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out.flush()) throw std::runtime_error("cannot write " + path.string());
}

std::string read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::string json_string(const std::string& s) {
    std::string out = "\"";
    for (const char c : s) {
        switch (c) {
            case '"':
                out += "\\\"";
                break;
            case '\\':
                out += "\\\\";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\t':
                out += "\\t";
                break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", c);
                    out += buf;
                } else {
                    out += c;
                }
        }
    }
    return out + "\"";
}

/// The last non-empty lines of a log, joined with "; " (the error's own words).
std::string tail_lines(const fs::path& log, std::size_t count) {
    std::istringstream in(read_file(log));
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);)
        if (line.find_first_not_of(" \t\r") != std::string::npos) lines.push_back(line);
    std::string out;
    for (std::size_t i = lines.size() > count ? lines.size() - count : 0; i < lines.size(); ++i)
        out += (out.empty() ? "" : "; ") + lines[i];
    return out;
}

struct ChildResult {
    int status = -1;  // exit code, or 128 + signal
    bool timed_out = false;
};

/// Runs argv in its own process group, stdout and stderr to files, with `env` added to
/// the environment. The child dies with the thread that started it (PR_SET_PDEATHSIG),
/// which waits for it here; past the timeout its whole group is killed.
ChildResult run_child(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                      const fs::path& out_file, const fs::path& err_file, double timeout_s) {
    std::vector<std::string> environment;
    for (char** e = environ; *e != nullptr; ++e) environment.emplace_back(*e);
    for (const std::string& entry : env) {
        const std::string name = entry.substr(0, entry.find('=') + 1);
        std::erase_if(environment, [&](const std::string& e) { return e.starts_with(name); });
        environment.push_back(entry);
    }
    std::vector<char*> args, envp;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    for (const auto& e : environment) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
    const int out_fd = ::open(out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    const int err_fd = ::open(err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (out_fd < 0 || err_fd < 0) {
        if (out_fd >= 0) ::close(out_fd);
        if (err_fd >= 0) ::close(err_fd);
        throw std::runtime_error("cannot create " + out_file.parent_path().string() + ": " + std::strerror(errno));
    }
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid == 0) {
        // Only async-signal-safe calls until exec.
        ::setpgid(0, 0);
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent) ::_exit(127);
        const int null_fd = ::open("/dev/null", O_RDONLY);
        if (null_fd >= 0) ::dup2(null_fd, STDIN_FILENO);
        ::dup2(out_fd, STDOUT_FILENO);
        ::dup2(err_fd, STDERR_FILENO);
        ::execve(args[0], args.data(), envp.data());
        ::_exit(127);
    }
    ::close(out_fd);
    ::close(err_fd);
    if (pid < 0) throw std::runtime_error(std::string("cannot start a process: ") + std::strerror(errno));
    ::setpgid(pid, pid);
    ChildResult result;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    while (true) {
        int status = 0;
        const pid_t done = ::waitpid(pid, &status, WNOHANG);
        if (done == pid) {
            result.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            ::kill(-pid, SIGKILL);  // anything it left behind in its group
            return result;
        }
        if (done < 0 && errno != EINTR) return result;
        if (timeout_s > 0 && std::chrono::steady_clock::now() > deadline) {
            result.timed_out = true;
            ::kill(-pid, SIGKILL);
            ::waitpid(pid, &status, 0);
            return result;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
}

double json_number(const rapidjson::Value& object, const char* name) {
    const auto it = object.FindMember(name);
    return it != object.MemberEnd() && it->value.IsNumber() ? it->value.GetDouble() : 0.0;
}

/// Loads `package`, checking first what it says of itself.
AotModel load_package(const fs::path& package, const torch::Device& device, const std::string& expected_key) {
    AotModel model;
    model.package = package;
    std::error_code ec;
    if (!fs::is_regular_file(package, ec)) throw std::runtime_error(package.string() + ": no such package");
    std::unordered_map<std::string, std::string> metadata;
    try {
        metadata = torch::inductor::AOTIModelPackageLoader::load_metadata_from_package(package.string(), "model");
    } catch (const std::exception& e) {
        throw std::runtime_error(package.string() + ": not a readable AOTInductor package: " +
                                 std::string(e.what()).substr(0, std::string(e.what()).find('\n')));
    }
    if (const auto it = metadata.find("AOTI_DEVICE_KEY");
        it != metadata.end() && it->second != device.str() && it->second != (device.is_cuda() ? "cuda" : "cpu"))
        throw std::runtime_error(package.string() + ": compiled for " + it->second + ", the scenario runs on " +
                                 device.str());
    if (const auto it = metadata.find("benchhost_torch_version");
        it != metadata.end() && it->second.substr(0, it->second.find('+')) != TORCH_VERSION)
        throw std::runtime_error(package.string() + ": compiled by torch " + it->second +
                                 ", this build links LibTorch " + TORCH_VERSION);
    if (!expected_key.empty()) {
        const auto it = metadata.find("benchhost_key");
        if (it == metadata.end() || it->second != expected_key)
            throw std::runtime_error(package.string() + ": its key is not the cache entry's");
    }
    const auto start = Clock::now();
    try {
        model.loader = std::make_shared<torch::inductor::AOTIModelPackageLoader>(
            package.string(), "model", false, 1, device.is_cuda() && device.has_index() ? device.index() : -1);
    } catch (const std::exception& e) {
        const std::string what = e.what();
        throw std::runtime_error(package.string() + ": cannot be loaded: " + what.substr(0, what.find('\n')));
    }
    synchronize(device);  // the weights' copies to a GPU are part of the load
    model.load_time_ms = elapsed_ns(start, Clock::now()) / 1e6;
    return model;
}

}  // namespace

std::vector<torch::Tensor> AotModel::operator()(const std::vector<torch::Tensor>& inputs) const {
    if (!loader) throw std::logic_error("AotModel: no package loaded");
    return loader->run(inputs);
}

bool is_aot_inductor_mode(const std::string& mode) { return mode == "default" || mode == "max-autotune"; }

fs::path aot_cache_dir() {
    const auto dir = benchhost_cache_dir();
    return dir ? *dir / "aot-inductor" : fs::path{};
}

std::string aot_python() {
    if (const char* env = std::getenv("BENCHHOST_PYTHON"); env != nullptr && *env != '\0') {
        if (::access(env, X_OK) != 0)
            throw AotUnavailable(std::string("BENCHHOST_PYTHON=") + env + " is not an executable file");
        return env;
    }
#if defined(BENCH_TORCH_PYTHON)
    if (::access(BENCH_TORCH_PYTHON, X_OK) == 0) return BENCH_TORCH_PYTHON;
    throw AotUnavailable(std::string("the AOTInductor compile needs the Python of PyTorch: ") + BENCH_TORCH_PYTHON +
                         " (the build's) does not exist; set BENCHHOST_PYTHON to a python with torch " + TORCH_VERSION);
#else
    throw AotUnavailable(std::string("the AOTInductor compile needs the Python of PyTorch: this build was configured "
                                     "without one; set BENCHHOST_PYTHON to a python with torch ") +
                         TORCH_VERSION);
#endif
}

namespace {

/// Inductor's own cache folder for the compiling child: the user's TORCHINDUCTOR_CACHE_DIR,
/// else `inductor/` of benchhost's cache folder (where benchhost.torch keeps
/// torch.compile's, so the C++ and the Python packages share it) when the packages go to
/// the default cache, else a folder in the compile's own work folder, removed with it.
/// Kept across compiles, it saves what every compile would repeat: Inductor's probes of
/// the CPU's vector instruction sets (a small program compiled per set) and the kernels of
/// graphs it compiled before; on the 2-core VM a small model's package took 7 s with it
/// and 17 s without (docs/models.md, "The package cache"). Under --compile-cache cold the
/// host unsets TORCHINDUCTOR_CACHE_DIR and gives the worker a fresh benchhost cache
/// folder, so the child's Inductor cache is fresh too.
fs::path inductor_cache_for(const AotCompileOptions& options, const fs::path& work) {
    if (const char* env = std::getenv("TORCHINDUCTOR_CACHE_DIR"); env != nullptr && *env != '\0') return env;
    if (options.cache_dir.empty())
        if (const auto dir = benchhost_cache_dir()) return *dir / "inductor";
    return work / "inductor";
}

}  // namespace

AotModel aot_compile(const torch::nn::Module& module, const PythonModel& python,
                     const std::vector<torch::Tensor>& inputs, const torch::Tensor& reference,
                     const AotCompileOptions& options) {
    if (!is_aot_inductor_mode(options.mode))
        throw std::invalid_argument("'" + options.mode +
                                    "' is not an AOTInductor compile mode (default, max-autotune)");
    if (inputs.empty()) throw std::invalid_argument("aot_compile: no example inputs");
    if (python.name.empty() || python.source.empty())
        throw std::invalid_argument("aot_compile: the Python model needs a name and a source");
    const torch::Device device = inputs.front().device();
    const fs::path cache = options.cache_dir.empty() ? aot_cache_dir() : options.cache_dir;
    if (cache.empty())
        throw AotUnavailable("no cache folder for AOTInductor packages: neither XDG_CACHE_HOME nor HOME is set");

    // The key: everything the package depends on.
    std::ostringstream key_text;
    key_text << "model " << python.name << "\nsource " << fnv_hex(python.source) << "\nexporter "
             << fnv_hex(aoti_compile_py);
    for (const auto& [name, value] : python.arguments) key_text << "\nargument " << name << "=" << value;
    key_text << "\nweights " << weights_digest(module);
    for (const auto& input : inputs) key_text << "\ninput " << shape_text(input);
    // The intra-op threads the child compiles with: the worker's, as the scenario set
    // them. Inductor writes them into the CPU code it generates (#pragma omp parallel
    // num_threads(N)), and oneDNN's prepacked weights are laid out for them.
    const int threads = at::get_num_threads();
    key_text << "\nthreads " << threads << "\ndevice " << device_text(device) << "\nmode " << options.mode
             << "\noptions " << inductor_options(options.mode) << "\ntorch " << torch_build() << "\n";
    const std::string key = fnv_hex(key_text.str());
    const fs::path entry = cache / (python.name + "-" + options.mode + "-" + key);
    const fs::path package = entry / "model.pt2";

    AotModel model;
    std::vector<std::string> notes;
    std::error_code ec;
    if (fs::exists(package, ec)) {
        try {
            model = load_package(package, device, key);
            model.cache_hit = true;
            model.key = key;
            return model;
        } catch (const std::exception& e) {
            notes.push_back(std::string("cache entry deleted and compiled again: ") + e.what());
            fs::remove_all(entry, ec);
        }
    }

    // A miss: compile in a child, in a folder of its own.
    const std::string python_exe = aot_python();
    fs::create_directories(cache, ec);
    std::string tmp_template = (cache / (".tmp-" + python.name + "-XXXXXX")).string();
    if (::mkdtemp(tmp_template.data()) == nullptr)
        throw std::runtime_error("cannot create a folder in " + cache.string() + ": " + std::strerror(errno));
    const fs::path work = tmp_template;
    struct Cleanup {
        fs::path dir;
        ~Cleanup() {
            std::error_code ignored;
            if (!dir.empty()) fs::remove_all(dir, ignored);
        }
    } cleanup{work};

    {
        c10::Dict<std::string, at::Tensor> weights;
        for (const auto& item : module.named_parameters(true)) weights.insert(item.key(), item.value().detach().cpu());
        for (const auto& item : module.named_buffers(true)) weights.insert(item.key(), item.value().detach().cpu());
        write_bytes(work / "weights.pt", torch::pickle_save(weights));
        c10::List<at::Tensor> example;
        for (const auto& input : inputs) example.push_back(input.detach().cpu());
        write_bytes(work / "inputs.pt", torch::pickle_save(example));
        write_bytes(work / "reference.pt", torch::pickle_save(reference.detach().cpu()));
    }
    write_file(work / "aoti_compile.py", aoti_compile_py);
    write_file(work / (python.name + "_model.py"), python.source);
    write_file(work / "key.txt", key_text.str());
    std::ostringstream request;
    request << "{\"definition\": " << json_string((work / (python.name + "_model.py")).string())
            << ", \"arguments\": {";
    bool first = true;
    for (const auto& [name, value] : python.arguments) {
        request << (first ? "" : ", ") << json_string(name) << ": " << json_string(value);
        first = false;
    }
    // The model's dtype is its output's (inputs may be token ids).
    const torch::ScalarType dtype = reference.scalar_type();
    const std::string dtype_name = dtype == torch::kHalf       ? "float16"
                                   : dtype == torch::kBFloat16 ? "bfloat16"
                                                               : "float32";
    request << "}, \"weights\": " << json_string((work / "weights.pt").string())
            << ", \"inputs\": " << json_string((work / "inputs.pt").string())
            << ", \"reference\": " << json_string((work / "reference.pt").string()) << ", \"tolerance\": ["
            << options.atol << ", " << options.rtol << "], \"device\": " << json_string(device.str())
            << ", \"dtype\": " << json_string(dtype_name) << ", \"threads\": " << threads
            << ", \"mode\": " << json_string(options.mode)
            << ", \"inductor_options\": " << inductor_options(options.mode)
            << ", \"metadata\": {\"benchhost_key\": " << json_string(key)
            << "}, \"torch_version\": " << json_string(TORCH_VERSION)
            << ", \"package\": " << json_string((work / "model.pt2").string()) << "}";
    write_file(work / "request.json", request.str());

    // A notice line, which the host shows on the console (host/src/execute/executor.cpp):
    // the compile takes a minute or more on a CPU, and the run would seem to hang.
    {
        std::string shapes;
        for (const auto& input : inputs) shapes += (shapes.empty() ? "" : ", ") + shape_text(input);
        const std::string notice = "[notice] compiling the AOTInductor package of " + python.name + " (mode " +
                                   options.mode + ", input " + shapes + ", " + std::to_string(threads) + " threads, " +
                                   device_text(device) + "): a minute or more on a CPU; cached for later runs in " +
                                   cache.string() + "\n";
        std::fputs(notice.c_str(), stderr);
        std::fflush(stderr);
    }
    const auto start = Clock::now();
    const ChildResult child =
        run_child({python_exe, (work / "aoti_compile.py").string(), (work / "request.json").string()},
                  {"TORCHINDUCTOR_CACHE_DIR=" + inductor_cache_for(options, work).string(),
                   "TORCHINDUCTOR_COMPILE_THREADS=1", "PYTHONDONTWRITEBYTECODE=1"},
                  work / "stdout.txt", work / "stderr.txt", options.timeout_s);
    const double wall_ms = elapsed_ns(start, Clock::now()) / 1e6;
    const std::string what = "AOTInductor compile of " + python.name + " (mode " + options.mode + ")";
    if (child.timed_out || child.status != 0) {
        // Keep the child's log beside the cache for whoever reads the failure.
        const fs::path log = cache / (python.name + "-" + options.mode + "-" + key + ".failed.log");
        fs::copy_file(work / "stderr.txt", log, fs::copy_options::overwrite_existing, ec);
        const std::string where = ec ? "" : " (log: " + log.string() + ")";
        if (child.timed_out) {
            char limit[32];
            std::snprintf(limit, sizeof limit, "%g", options.timeout_s);
            throw std::runtime_error(what + " timed out after " + limit + " s (--compile-timeout)" + where);
        }
        const std::string reason = tail_lines(work / "stderr.txt", child.status == 3 ? 1 : 3);
        throw std::runtime_error(what + " failed (" +
                                 (child.status > 128 ? "signal " + std::to_string(child.status - 128)
                                                     : "exit " + std::to_string(child.status)) +
                                 "): " + (reason.empty() ? "no message" : reason) + where);
    }
    rapidjson::Document report;
    const std::string out = tail_lines(work / "stdout.txt", 1);
    report.Parse(out.c_str());
    if (report.HasParseError() || !report.IsObject())
        throw std::runtime_error(what + ": the compiler printed no result: " + out.substr(0, 200));
    write_file(work / "compile.json", "{\"compile_ms\": " + std::to_string(wall_ms) +
                                          ", \"export_ms\": " + std::to_string(json_number(report, "export_ms")) +
                                          ", \"torch_version\": " + json_string(torch_build()) + "}\n");

    // Into place: a folder of its own, renamed whole (another worker's may have won).
    const fs::path staged = work / "entry";
    fs::create_directories(staged);
    for (const char* name : {"model.pt2", "key.txt", "compile.json"}) fs::rename(work / name, staged / name);
    fs::rename(staged, entry, ec);
    if (ec && !fs::exists(package))
        throw std::runtime_error("cannot move the package into " + entry.string() + ": " + ec.message());

    try {
        model = load_package(package, device, key);
    } catch (const std::exception&) {
        fs::remove_all(entry, ec);  // never loaded twice
        throw;
    }
    model.key = key;
    model.compile_time_ms = wall_ms;
    model.export_time_ms = json_number(report, "export_ms");
    model.notes = std::move(notes);
    return model;
}

AotModel aot_load(const fs::path& package, const torch::Device& device) { return load_package(package, device, ""); }

}  // namespace bench::libtorch
