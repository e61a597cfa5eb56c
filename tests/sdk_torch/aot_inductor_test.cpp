// The AOTInductor compile on a small MLP: the real exporter in a child process with the
// project's Python, the package cache, and what goes wrong (a Python model that is not
// the C++ one, a timeout, a corrupt cache entry, a package for another device, no Python).
#include <bench/torch/aot_inductor.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>

#include <ATen/Parallel.h>
#include <c10/core/InferenceMode.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>

#include <gtest/gtest.h>

#include "../support/inductor_cache.hpp"
#include "../support/scoped_env.hpp"

namespace {

namespace fs = std::filesystem;
using namespace bench::libtorch;

struct Mlp : torch::nn::Module {
    torch::nn::Linear fc1{nullptr}, fc2{nullptr};
    Mlp() {
        fc1 = register_module("fc1", torch::nn::Linear(16, 32));
        fc2 = register_module("fc2", torch::nn::Linear(32, 4));
    }
    torch::Tensor forward(const torch::Tensor& x) { return fc2(torch::relu(fc1(x))); }
};

constexpr const char* mlp_source = R"(
import torch

class Mlp(torch.nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.fc1 = torch.nn.Linear(16, hidden)
        self.fc2 = torch.nn.Linear(hidden, 4)

    def forward(self, x):
        return self.fc2(torch.ACTIVATION(self.fc1(x)))

def build(hidden):
    return Mlp(int(hidden))
)";

std::string mlp_python(const std::string& activation) {
    std::string source = mlp_source;
    source.replace(source.find("ACTIVATION"), 10, activation);
    return source;
}

class AotInductorTest : public ::testing::Test {
protected:
    void SetUp() override {
        std::string dir = (fs::temp_directory_path() / "benchhost-aot-test-XXXXXX").string();
        ASSERT_NE(::mkdtemp(dir.data()), nullptr);
        cache_ = dir;
        torch::manual_seed(1);
        model_ = std::make_shared<Mlp>();
        model_->eval();
        for (auto& p : model_->parameters()) p.set_requires_grad(false);
        input_ = torch::randn({3, 16});
        const c10::InferenceMode inference;
        reference_ = model_->forward(input_);
    }
    void TearDown() override {
        std::error_code ignored;
        fs::remove_all(cache_, ignored);
    }

    AotModel compile(const std::string& activation = "relu", double timeout_s = 0) {
        AotCompileOptions options;
        options.cache_dir = cache_;
        options.timeout_s = timeout_s;
        return aot_compile(*model_, {"mlp", mlp_python(activation), {{"hidden", "32"}}}, {input_}, reference_, options);
    }

    std::size_t entries() const {
        std::size_t n = 0;
        for (const auto& e : fs::directory_iterator(cache_))
            if (e.is_directory() && !e.path().filename().string().starts_with(".")) ++n;
        return n;
    }

    fs::path cache_;
    // The package cache is the test's own (cache_); Inductor's, whose probes every
    // compile from an empty one repeats, is shared (inductor_cache.hpp).
    benchtest::ScopedEnv inductor_cache_{"TORCHINDUCTOR_CACHE_DIR", benchtest::shared_inductor_cache().string()};
    std::shared_ptr<Mlp> model_;
    torch::Tensor input_, reference_;
};

TEST_F(AotInductorTest, CompilesOnceThenLoadsFromTheCache) {
    const AotModel first = compile();
    EXPECT_FALSE(first.cache_hit);
    EXPECT_GT(first.compile_time_ms, first.export_time_ms);
    EXPECT_GT(first.export_time_ms, 0);
    EXPECT_GT(first.load_time_ms, 0);
    EXPECT_EQ(first.key.size(), 16u);
    EXPECT_EQ(first.package, cache_ / ("mlp-default-" + first.key) / "model.pt2");
    // What the key was made of, readable; Inductor writes the OpenMP thread count into
    // the CPU code, so it is part of it.
    std::ifstream key_file(first.package.parent_path() / "key.txt");
    const std::string key_text((std::istreambuf_iterator<char>(key_file)), std::istreambuf_iterator<char>());
    EXPECT_NE(key_text.find("model mlp\n"), std::string::npos) << key_text;
    EXPECT_NE(key_text.find("argument hidden=32\n"), std::string::npos) << key_text;
    EXPECT_NE(key_text.find("\nthreads " + std::to_string(at::get_num_threads()) + "\n"), std::string::npos)
        << key_text;
    EXPECT_TRUE(fs::exists(first.package.parent_path() / "compile.json"));
    {
        const c10::InferenceMode inference;
        const auto out = first({input_});
        ASSERT_EQ(out.size(), 1u);
        EXPECT_TRUE(torch::allclose(out[0], reference_, 1e-3, 1e-4)) << (out[0] - reference_).abs().max();
    }
    // The same scenario again: loaded, nothing compiled.
    const AotModel second = compile();
    EXPECT_TRUE(second.cache_hit);
    EXPECT_EQ(second.compile_time_ms, 0);
    EXPECT_EQ(second.package, first.package);
    EXPECT_EQ(entries(), 1u);

    // Other weights make another key; so do other shapes.
    {
        const torch::NoGradGuard no_grad;
        model_->fc2->bias.add_(1.0);
    }
    const c10::InferenceMode inference;
    reference_ = model_->forward(input_);
    const AotModel other = compile();
    EXPECT_FALSE(other.cache_hit);
    EXPECT_NE(other.key, first.key);
    EXPECT_EQ(entries(), 2u);

    // A package loaded as given: for the CPU it loads; for CUDA it is refused, naming it.
    const AotModel loaded = aot_load(first.package, torch::kCPU);
    EXPECT_TRUE(torch::allclose(loaded({input_})[0], first({input_})[0]));
    try {
        aot_load(first.package, torch::Device(torch::kCUDA, 0));
        FAIL() << "a CPU package loaded for CUDA";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(
            std::string(e.what()).find(first.package.string() + ": compiled for cpu, the scenario runs on cuda:0"),
            std::string::npos)
            << e.what();
    }
    EXPECT_THROW(aot_load(cache_ / "none.pt2", torch::kCPU), std::runtime_error);
}

TEST_F(AotInductorTest, ACorruptEntryIsCompiledAgainNeverLoadedTwice) {
    const AotModel first = compile();
    ASSERT_FALSE(first.cache_hit);
    {
        std::ofstream truncate(first.package, std::ios::binary | std::ios::trunc);
        truncate << "not a zip";
    }
    const AotModel again = compile();
    EXPECT_FALSE(again.cache_hit);
    ASSERT_EQ(again.notes.size(), 1u);
    EXPECT_NE(again.notes[0].find("cache entry deleted and compiled again: " + first.package.string()),
              std::string::npos)
        << again.notes[0];
    EXPECT_TRUE(compile().cache_hit);
}

TEST_F(AotInductorTest, APythonModelThatIsNotTheCppOneIsRefusedBeforeCompiling) {
    try {
        compile("tanh");
        FAIL() << "compiled a different model";
    } catch (const std::runtime_error& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("AOTInductor compile of mlp (mode default) failed (exit 3)"), std::string::npos) << what;
        EXPECT_NE(what.find("the Python model does not reproduce the C++ model"), std::string::npos) << what;
        EXPECT_NE(what.find(".failed.log"), std::string::npos) << what;
    }
    EXPECT_EQ(entries(), 0u);
}

TEST_F(AotInductorTest, ACompilePastItsTimeoutFailsAndLeavesNoEntry) {
    try {
        compile("relu", 0.05);
        FAIL() << "no timeout";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("timed out after 0.05 s (--compile-timeout)"), std::string::npos)
            << e.what();
    }
    EXPECT_EQ(entries(), 0u);
    for (const auto& e : fs::directory_iterator(cache_))
        EXPECT_FALSE(e.path().filename().string().starts_with(".tmp-")) << e.path();
}

TEST_F(AotInductorTest, BadModeAndNoPython) {
    AotCompileOptions options;
    options.cache_dir = cache_;
    options.mode = "reduce-overhead";
    EXPECT_THROW(aot_compile(*model_, {"mlp", mlp_python("relu"), {}}, {input_}, reference_, options),
                 std::invalid_argument);
    EXPECT_TRUE(is_aot_inductor_mode("default"));
    EXPECT_TRUE(is_aot_inductor_mode("max-autotune"));
    EXPECT_FALSE(is_aot_inductor_mode("torchscript"));

    const char* old = std::getenv("BENCHHOST_PYTHON");
    const std::optional<std::string> saved = old ? std::optional<std::string>(old) : std::nullopt;
    ::setenv("BENCHHOST_PYTHON", "/nonexistent/python3", 1);
    try {
        compile();
        ADD_FAILURE() << "compiled without a Python";
    } catch (const AotUnavailable& e) {
        EXPECT_NE(std::string(e.what()).find("BENCHHOST_PYTHON=/nonexistent/python3 is not an executable file"),
                  std::string::npos)
            << e.what();
    }
    if (saved) ::setenv("BENCHHOST_PYTHON", saved->c_str(), 1);
    else ::unsetenv("BENCHHOST_PYTHON");
}

}  // namespace
