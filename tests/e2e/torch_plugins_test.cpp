// End to end on the LibTorch plugins: the real host runs each model in each variant
// (a few iterations: this checks what is computed and reported, not how fast), and the
// reports must show the architectures' known sizes, outputs that match eager, and
// every series a user reads.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "../support/image_files.hpp"
#include "../support/inductor_cache.hpp"
#include "../support/test_support.hpp"

namespace {

using namespace benchtest;

const fs::path build_dir = BENCH_TEST_BUILD_DIR;

struct Scenario {
    std::string status, reason;
    const rapidjson::Value* report = nullptr;  // the scenario in its plugin report
};

class TorchPluginsTest : public ::testing::Test {
protected:
    /// Runs the host on the build's plugins with `args`; returns scenarios by name.
    std::map<std::string, Scenario> run(std::vector<std::string> args, int expected_exit = 0) {
        fs::remove_all(output);
        std::vector<std::string> argv = {benchhost_binary().string(),
                                         "run",
                                         "--plugins-dir",
                                         (build_dir / "plugins").string(),
                                         "--output-dir",
                                         output.string(),
                                         "--warmup-iterations",
                                         "0"};
        if (std::find(args.begin(), args.end(), "--measurement-iterations") == args.end())
            args.insert(args.end(), {"--measurement-iterations", "2"});
        // Compiled is TorchScript unless a test asks for a mode: an AOTInductor compile
        // takes tens of seconds, and one test covers it.
        if (std::find(args.begin(), args.end(), "--compile-modes") == args.end())
            args.insert(args.end(), {"--compile-modes", "torchscript"});
        argv.insert(argv.end(), args.begin(), args.end());
        // Benchhost's cache is the test's own; Inductor's is shared (inductor_cache.hpp).
        const ProcessResult result = run_process(argv, work.path(),
                                                 {"XDG_CACHE_HOME=" + (work / "cache").string(),
                                                  "TORCHINDUCTOR_CACHE_DIR=" + shared_inductor_cache().string()});
        EXPECT_EQ(result.exit_code, expected_exit) << result.out << result.err;
        reports.clear();
        std::map<std::string, Scenario> scenarios;
        for (const auto& folder : fs::directory_iterator(output)) {
            if (!folder.is_directory()) continue;
            for (const auto& file : fs::directory_iterator(folder.path())) {
                reports.push_back(read_json(file.path()));
                for (const auto& s : reports.back()["benchmark_scenarios"].GetArray())
                    scenarios[s["scenario_name"].GetString()] =
                        Scenario{s["status"].GetString(), s.HasMember("reason") ? s["reason"].GetString() : "", &s};
            }
        }
        return scenarios;
    }

    /// A resnet50 or vit_b_16 scenario's name as planned: the compiled variant's carries
    /// its compile mode (TorchScript in these tests), the others' do not.
    static std::string with_mode(const std::string& name) {
        return name.find("variant=compiled") == std::string::npos
                   ? name
                   : name.substr(0, name.size() - 1) + ",compile_mode=torchscript]";
    }

    static double scalar(const Scenario& s, const char* name) {
        const auto& m = (*s.report)["measurements"];
        if (!m.HasMember(name) || !m[name].HasMember("value") || !m[name]["value"].IsNumber()) return std::nan("");
        return m[name]["value"].GetDouble();
    }
    static bool has_series(const Scenario& s, const char* name) {
        const auto& m = (*s.report)["measurements"];
        return m.HasMember(name) && m[name].HasMember("measurements") && m[name]["measurements"].Size() > 0;
    }

    TempDir work;
    fs::path output = work / "out";
    std::vector<rapidjson::Document> reports;
};

TEST_F(TorchPluginsTest, ResNet50InEveryVariant) {
    auto s = run({"--include", "resnet50/resnet50", "--variants", "eager,compiled,kernelized", "--batch-sizes", "1"});
    ASSERT_EQ(s.size(), 3u);
    for (const char* variant : {"eager", "compiled", "kernelized"}) {
        const Scenario& scenario = s[with_mode("resnet50[variant=" + std::string(variant) +
                                               ",batch_size=1,dtype=float32,device=cpu,threads=0]")];
        ASSERT_EQ(scenario.status, "success") << variant << ": " << scenario.reason;
        EXPECT_EQ(scalar(scenario, "parameters"), 25'557'032) << variant;
        // 4.09 G multiply-accumulates at 224x224, two FLOPs each.
        EXPECT_NEAR(scalar(scenario, "flops_per_forward") / 8.18e9, 1.0, 0.02) << variant;
        for (const char* series : {"latency", "throughput", "gflops"})
            EXPECT_TRUE(has_series(scenario, series)) << series;
        if (std::string(variant) != "eager") {
            EXPECT_LE(scalar(scenario, "max_abs_diff"), 1e-2) << variant;  // checked against eager by the plugin
        }
    }
    EXPECT_GT(
        scalar(s["resnet50[variant=compiled,batch_size=1,dtype=float32,device=cpu,threads=0,compile_mode=torchscript]"],
               "compile_time"),
        0);
    // The cold start, reported apart: loading the plugin, building the model, compiling, the first call.
    const auto& cold =
        (*s["resnet50[variant=compiled,batch_size=1,dtype=float32,device=cpu,threads=0,compile_mode=torchscript]"]
              .report)["cold_start"];
    for (const char* name : {"plugin_load", "model_load", "compile_time", "first_call"})
        EXPECT_GT(cold[name]["value"].GetDouble(), 0.0) << name;
    // Each variant's speedup over eager, with its interval.
    const auto& speedup = (*s["resnet50[variant=kernelized,batch_size=1,dtype=float32,device=cpu,threads=0]"]
                                .report)["speedup_over_eager"];
    EXPECT_GT(speedup["latency"]["value"].GetDouble(), 0.0);
    EXPECT_TRUE(speedup["latency"]["ci95"].IsArray());
    // The kernelized variant runs on the SDK's oneDNN kernel, and says so.
    const auto& kernelized =
        (*s["resnet50[variant=kernelized,batch_size=1,dtype=float32,device=cpu,threads=0]"].report);
    EXPECT_STREQ(kernelized["info"]["kernels"].GetString(), "conv_bn_act=onednn_prepacked_nhwc");
}

TEST_F(TorchPluginsTest, ResNet50CompiledAsAnAotInductorPackageThenLoadedFromTheCache) {
    // Three compile modes: eager runs once whatever the modes; the package is compiled
    // in a child process (the project's Python), checked against eager and timed.
    auto s = run({"--include", "resnet50/resnet50", "--variants", "eager,compiled", "--batch-sizes", "1", "--param",
                  "image_size=64", "--compile-modes", "default,reduce-overhead,torchscript"});
    ASSERT_EQ(s.size(), 4u);
    const std::string base = "resnet50[variant=compiled,batch_size=1,dtype=float32,device=cpu,threads=0,compile_mode=";
    EXPECT_EQ(s["resnet50[variant=eager,batch_size=1,dtype=float32,device=cpu,threads=0]"].status, "success");
    EXPECT_EQ(s[base + "torchscript]"].status, "success") << s[base + "torchscript]"].reason;
    const Scenario& skipped = s[base + "reduce-overhead]"];
    EXPECT_EQ(skipped.status, "skipped");
    EXPECT_EQ(skipped.reason, "compile mode reduce-overhead is CUDA graphs, which the CPU has no equivalent of");

    const Scenario& cold = s[base + "default]"];
    ASSERT_EQ(cold.status, "success") << cold.reason;
    EXPECT_LE(scalar(cold, "max_abs_diff"), 1e-2);
    EXPECT_GT(scalar(cold, "compile_time"), scalar(cold, "export_time"));
    EXPECT_GT(scalar(cold, "export_time"), 0);
    EXPECT_GT(scalar(cold, "package_load_time"), 0);
    EXPECT_GT(scalar(cold, "flops_per_forward"), 0);  // counted on the eager model's trace
    EXPECT_TRUE(has_series(cold, "latency"));
    const auto& info = (*cold.report)["info"];
    EXPECT_STREQ(info["variant_passes"].GetString(), "torch.export,aot_inductor(default,freezing)");
    const std::string miss = info["compile_cache"].GetString();
    ASSERT_EQ(miss.rfind("miss: " + (work / "cache" / "benchhost" / "aot-inductor").string() + "/resnet50-default-", 0),
              0u)
        << miss;
    const auto& cold_start = (*cold.report)["cold_start"];
    for (const char* name : {"compile_time", "package_load_time", "first_call"})
        EXPECT_GT(cold_start[name]["value"].GetDouble(), 0.0) << name;
    const std::string package = miss.substr(6);
    EXPECT_TRUE(fs::exists(package)) << package;

    // The same scenario again: loaded from the cache, nothing compiled.
    auto again = run({"--include", "resnet50/resnet50", "--variants", "compiled", "--batch-sizes", "1", "--param",
                      "image_size=64", "--compile-modes", "default"});
    const Scenario& warm = again[base + "default]"];
    ASSERT_EQ(warm.status, "success") << warm.reason;
    EXPECT_EQ(std::string((*warm.report)["info"]["compile_cache"].GetString()), "hit: " + package);
    EXPECT_TRUE(std::isnan(scalar(warm, "compile_time")));
    EXPECT_GT(scalar(warm, "package_load_time"), 0);
    EXPECT_LE(scalar(warm, "max_abs_diff"), 1e-2);

    // Served with a package per batch size: batch 1's is the one above, from the cache;
    // batch 2's is compiled for serving. Offline: a batch of 2, then 2, then 1. (Here
    // rather than in a test of its own, which compiled batch 1's package again.)
    auto serving = run({"--include", "resnet50/resnet50", "--variants", "compiled", "--compile-modes", "default",
                        "--param", "image_size=64", "--load", "offline", "--queries", "5", "--max-batch", "2"});
    ASSERT_EQ(serving.size(), 1u);
    const Scenario& served = serving.begin()->second;
    ASSERT_EQ(served.status, "success") << served.reason;
    const auto& batches = (*served.report)["measurements"]["queries_per_batch"]["measurements"];
    ASSERT_EQ(batches.Size(), 3u);
    EXPECT_EQ(batches[0].GetDouble(), 2);
    EXPECT_EQ(batches[2].GetDouble(), 1);
    EXPECT_GT(scalar(served, "serving_compile_time"), 0);
    EXPECT_LE(scalar(served, "max_abs_diff"), 1e-2);
    const auto& serving_info = (*served.report)["info"];
    EXPECT_STREQ(serving_info["serving_compile_cache"].GetString(), "1 of 2 packages from the cache");
    EXPECT_NE(std::string(serving_info["serving"].GetString()).find("a package compiled per batch size, 1 to 2"),
              std::string::npos)
        << serving_info["serving"].GetString();

    // A package the cache holds but cannot load (cut short): compiled again, with a
    // warning naming it, and never loaded twice.
    fs::resize_file(package, 1000);
    auto repaired = run({"--include", "resnet50/resnet50", "--variants", "compiled", "--batch-sizes", "1", "--param",
                         "image_size=64", "--compile-modes", "default"});
    const Scenario& recompiled = repaired[base + "default]"];
    ASSERT_EQ(recompiled.status, "success") << recompiled.reason;
    EXPECT_EQ(std::string((*recompiled.report)["info"]["compile_cache"].GetString()), "miss: " + package);
    std::string warnings;
    for (const auto& w : (*recompiled.report)["warnings"].GetArray()) warnings += std::string(w.GetString()) + "\n";
    EXPECT_NE(warnings.find("cache entry deleted and compiled again: " + package), std::string::npos) << warnings;

    // --compile-cache cold: compiled from nothing in the scenario's fresh cache folder (in
    // the temporary folder), however warm the cache is, which is left as it was.
    auto fresh = run({"--include", "resnet50/resnet50", "--variants", "compiled", "--batch-sizes", "1", "--param",
                      "image_size=64", "--compile-modes", "default", "--compile-cache", "cold"});
    const Scenario& cold_again = fresh[base + "default]"];
    ASSERT_EQ(cold_again.status, "success") << cold_again.reason;
    const auto& cold_info = (*cold_again.report)["info"];
    const std::string cold_miss = cold_info["compile_cache"].GetString();
    EXPECT_EQ(cold_miss.rfind("miss: " + (fs::temp_directory_path() / "benchhost-compile-cache-").string(), 0), 0u)
        << cold_miss;
    EXPECT_GT(scalar(cold_again, "compile_time"), scalar(cold_again, "export_time"));
    EXPECT_EQ(std::string(cold_info["compile_caches"].GetString()).rfind("cold: ", 0), 0u);
    EXPECT_NE(std::string(cold_info["compiler"].GetString()).find("AOTInductor package (mode 'default')"),
              std::string::npos);
    EXPECT_TRUE(fs::exists(package)) << "the warm cache is left as it was: " << package;
}

TEST_F(TorchPluginsTest, APackageBuiltElsewhereIsTimedAsGiven) {
    // A .pt2 package made with torch.export and AOTInductor, as a user would make one.
    const fs::path package = work / "small.pt2";
    const std::string script =
        "import sys, torch\n"
        "torch.manual_seed(0)\n"
        "m = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3), torch.nn.ReLU(), torch.nn.AdaptiveAvgPool2d(1),\n"
        "                        torch.nn.Flatten(), torch.nn.Linear(8, 10)).eval()\n"
        "with torch.no_grad():\n"
        "    ep = torch.export.export(m, (torch.randn(2, 3, 16, 16),))\n"
        "    torch._inductor.aoti_compile_and_package(ep, package_path=sys.argv[1])\n";
    const ProcessResult made = run_process({BENCH_TEST_PYTHON, "-c", script, package.string()}, work.path(),
                                           {"TORCHINDUCTOR_CACHE_DIR=" + shared_inductor_cache().string()});
    ASSERT_EQ(made.exit_code, 0) << made.out << made.err;

    auto s = run({"--include", "torchscript_model", "--model-path", package.string(), "--variants",
                  "eager,compiled,kernelized", "--batch-sizes", "2", "--param", "input_shape=3,16,16"});
    ASSERT_EQ(s.size(), 2u);  // kernelized is not planned: the plugin declares eager and compiled
    const std::string name = "torchscript_model[variant=compiled,batch_size=2,dtype=float32,device=cpu,threads=0]";
    const Scenario& compiled = s[name];
    ASSERT_EQ(compiled.status, "success") << compiled.reason;
    EXPECT_GT(scalar(compiled, "load_time"), 0);
    EXPECT_GT(scalar(compiled, "first_call"), 0);
    EXPECT_TRUE(has_series(compiled, "latency"));
    EXPECT_STREQ((*compiled.report)["info"]["variant_passes"].GetString(),
                 "a .pt2 package as given (compiled elsewhere)");
    EXPECT_EQ(s["torchscript_model[variant=eager,batch_size=2,dtype=float32,device=cpu,threads=0]"].reason,
              "a .pt2 package is compiled ahead of time: the compiled variant times it as given");

    // Another batch size than it was compiled for: the scenario fails, naming the package.
    auto other = run({"--include", "torchscript_model", "--model-path", package.string(), "--variants", "compiled",
                      "--batch-sizes", "3", "--param", "input_shape=3,16,16"},
                     1);
    ASSERT_EQ(other.size(), 1u);
    const Scenario& refused = other.begin()->second;
    EXPECT_EQ(refused.status, "failed");
    EXPECT_NE(refused.reason.find(package.string() + ": the package does not take an input of shape [3, 3, 16, 16] in "
                                                     "float32"),
              std::string::npos)
        << refused.reason;

    // TorchScript files and packages do not run side by side.
    const fs::path script_file = build_dir / "models" / "example_cnn.pt";
    auto mixed = run({"--include", "torchscript_model", "--param",
                      "models=script:" + script_file.string() + ",package:" + package.string(), "--variants",
                      "compiled", "--batch-sizes", "2", "--param", "input_shape=3,16,16"},
                     1);
    ASSERT_EQ(mixed.size(), 1u);
    EXPECT_NE(mixed.begin()->second.reason.find("are not of one kind (TorchScript files and .pt2 packages run apart)"),
              std::string::npos)
        << mixed.begin()->second.reason;
}

TEST_F(TorchPluginsTest, TensorOpsVariantsWhereTheyApply) {
    auto s = run({"--include", "tensor_ops/conv2d", "--include", "tensor_ops/softmax", "--dtypes", "float32", "--param",
                  "conv2d.shapes=1x16x16x16", "--param", "softmax.shapes=8x64"});
    // softmax declares no kernelized variant (BENCH_BENCHMARK_VARIANTS): it is not planned.
    ASSERT_EQ(s.size(), 5u);
    for (const char* variant : {"eager", "compiled", "kernelized"}) {
        const Scenario& conv = s["conv2d[variant=" + std::string(variant) + ",dtype=float32,device=cpu,threads=0]"];
        ASSERT_EQ(conv.status, "success") << variant << ": " << conv.reason;
        EXPECT_TRUE(has_series(conv, "latency")) << variant;
        if (std::string(variant) != "eager") {
            EXPECT_LE(scalar(conv, "max_rel_diff"), 1e-3) << variant;
        }
    }
    EXPECT_GT(scalar(s["conv2d[variant=compiled,dtype=float32,device=cpu,threads=0]"], "compile_time_1x16x16x16"), 0);
    EXPECT_EQ(s["softmax[variant=compiled,dtype=float32,device=cpu,threads=0]"].status, "success");
    EXPECT_EQ(s.count("softmax[variant=kernelized,dtype=float32,device=cpu,threads=0]"), 0u);
}

TEST_F(TorchPluginsTest, TensorOpsSlowdownMakesTheTimedCallsSlower) {
    // slowdown=1.5 busy-waits half of each call's time after the operator. Runs of the
    // same build side by side, not absolute times: the slowed run's median against the
    // quieter of two plain runs around it, with a generous bound (1.2 for 1.5).
    const std::vector<std::string> args = {"--include", "tensor_ops/matmul",  "--variants",
                                           "eager",     "--dtypes",           "float32",
                                           "--param",   "matmul.sizes=128",   "--measurement-iterations",
                                           "15",        "--monitor-interval", "0"};
    const std::string id = "matmul[variant=eager,dtype=float32,device=cpu,threads=0]";
    const auto median = [&](const std::vector<std::string>& extra, std::string* slowdown_info = nullptr) {
        std::vector<std::string> all = args;
        all.insert(all.end(), extra.begin(), extra.end());
        auto s = run(all);
        const Scenario& matmul = s[id];
        EXPECT_EQ(matmul.status, "success") << matmul.reason;
        if (matmul.status != "success") return std::nan("");
        const auto& info = (*matmul.report)["info"];
        if (slowdown_info != nullptr && info.HasMember("slowdown")) *slowdown_info = info["slowdown"].GetString();
        return (*matmul.report)["measurements"]["latency_n128"]["median"].GetDouble();
    };
    std::string info;
    const double plain_before = median({});
    const double slowed = median({"--param", "slowdown=1.5"}, &info);
    const double plain_after = median({});
    EXPECT_EQ(info, "1.5");  // the report says its timings were slowed on purpose
    const double plain = std::min(plain_before, plain_after);
    EXPECT_GT(slowed / plain, 1.2) << "plain " << plain_before << " and " << plain_after << " ms, slowed " << slowed
                                   << " ms";

    // A slowdown below 1 or not a number fails the scenario, naming the parameter.
    for (const char* bad : {"slowdown=0.5", "slowdown=fast"}) {
        std::vector<std::string> all = args;
        all.insert(all.end(), {"--param", bad});
        auto s = run(all, 1);
        EXPECT_EQ(s[id].status, "failed") << bad;
        EXPECT_NE(s[id].reason.find("slowdown"), std::string::npos) << bad << ": " << s[id].reason;
    }
}

TEST_F(TorchPluginsTest, VitB16InEveryVariant) {
    auto s = run({"--include", "vit_b_16/vit_b_16", "--variants", "eager,compiled,kernelized", "--batch-sizes", "1",
                  "--measurement-iterations", "1"});
    ASSERT_EQ(s.size(), 3u);
    for (const char* variant : {"eager", "compiled", "kernelized"}) {
        const Scenario& scenario = s[with_mode("vit_b_16[variant=" + std::string(variant) +
                                               ",batch_size=1,dtype=float32,device=cpu,threads=0]")];
        ASSERT_EQ(scenario.status, "success") << variant << ": " << scenario.reason;
        EXPECT_EQ(scalar(scenario, "parameters"), 86'567'656) << variant;
        // 17.57 G multiply-accumulates: patch embedding, 12 layers of attention and MLP, head.
        EXPECT_NEAR(scalar(scenario, "flops_per_forward") / 35.14e9, 1.0, 0.02) << variant;
        for (const char* series : {"latency", "throughput"}) EXPECT_TRUE(has_series(scenario, series)) << series;
    }
    // Eager (and its trace) attends as nn.MultiheadAttention's inference fast path; the
    // kernelized default calls the CPU flash-attention kernel itself.
    const auto info = [&](const char* variant, const char* name) -> std::string {
        const auto& report = *s[with_mode("vit_b_16[variant=" + std::string(variant) +
                                          ",batch_size=1,dtype=float32,device=cpu,threads=0]")]
                                  .report;
        return report["info"].HasMember(name) ? report["info"][name].GetString() : "";
    };
    for (const char* variant : {"eager", "compiled"})
        EXPECT_EQ(info(variant, "attention").rfind("_native_multi_head_attention", 0), 0u)
            << info(variant, "attention");
    EXPECT_EQ(info("kernelized", "kernel_path"), "onednn_prepacked");
    EXPECT_EQ(info("kernelized", "attention"), "_scaled_dot_product_flash_attention_for_cpu");
}

TEST_F(TorchPluginsTest, VitB16KernelPathsMatchEager) {
    // Batch 2: the attention kernels take more than one image. Each path's output is
    // checked against eager's by the plugin (out of tolerance the scenario fails).
    for (const auto& [path, attention] :
         {std::pair{"fused_attention", "_scaled_dot_product_flash_attention_for_cpu"},
          std::pair{"fused_encoder_layer", "_transformer_encoder_layer_fwd (its _native_multi_head_attention)"}}) {
        auto s = run({"--include", "vit_b_16/vit_b_16", "--variants", "kernelized", "--batch-sizes", "2", "--param",
                      std::string("kernel=") + path, "--measurement-iterations", "1"});
        ASSERT_EQ(s.size(), 1u) << path;
        const Scenario& scenario = s.begin()->second;
        ASSERT_EQ(scenario.status, "success") << path << ": " << scenario.reason;
        EXPECT_LE(scalar(scenario, "max_abs_diff"), 1e-2) << path;
        EXPECT_NEAR(scalar(scenario, "flops_per_forward") / (2 * 35.14e9), 1.0, 0.02) << path;  // two images
        const auto& info = (*scenario.report)["info"];
        EXPECT_STREQ(info["kernel_path"].GetString(), path);
        EXPECT_STREQ(info["attention"].GetString(), attention);
    }
}

TEST_F(TorchPluginsTest, Gpt2TinyGeneratesInEveryVariant) {
    auto s = run({"--include", "gpt2/gpt2", "--model-id", "gpt2-tiny", "--variants", "eager,compiled,kernelized",
                  "--batch-sizes", "1", "--num-tokens-to-generate", "4"});
    ASSERT_EQ(s.size(), 3u);
    for (const auto& [name, scenario] : s) {
        ASSERT_EQ(scenario.status, "success") << name << ": " << scenario.reason;
        for (const char* series : {"time_to_first_token", "time_per_output_token", "tokens_per_second", "latency"})
            EXPECT_TRUE(has_series(scenario, series)) << name << " " << series;
        // What a decode step must read, over its time: gpt2-tiny's 560,640 float32
        // parameters and, over the 3 decode steps after a 32-token prompt, the keys and
        // values of 34 positions on average in 2 layers of 128: 2,312,192 bytes.
        const auto& m = (*scenario.report)["measurements"];
        ASSERT_TRUE(has_series(scenario, "decode_bandwidth")) << name;
        const auto& gbs = m["decode_bandwidth"]["measurements"];
        const auto& tpot = m["time_per_output_token"]["measurements"];
        ASSERT_EQ(gbs.Size(), tpot.Size());
        for (rapidjson::SizeType i = 0; i < gbs.Size(); ++i)
            EXPECT_NEAR(gbs[i].GetDouble() * 1e9 * tpot[i].GetDouble() / 1e3, 2312192.0, 1e-3) << name << " " << i;
        EXPECT_TRUE(std::isnan(scalar(scenario, "fraction_of_peak_decode_bandwidth")))
            << name;  // the CPU's peak is not known
    }
}

TEST_F(TorchPluginsTest, Gpt2CompiledAsTwoAotInductorPackagesOverOneKvCache) {
    // A prefill package and a decode-step package, both writing the one cache the plugin
    // keeps: batch 2, 6 tokens, so that the decode steps read what the prefill and the
    // steps before them wrote. In float32 the plugin fails the scenario when a token
    // differs from eager's.
    const std::vector<std::string> args{"--include",
                                        "gpt2/gpt2",
                                        "--model-id",
                                        "gpt2-tiny",
                                        "--variants",
                                        "compiled",
                                        "--batch-sizes",
                                        "2",
                                        "--num-tokens-to-generate",
                                        "6",
                                        "--compile-modes",
                                        "default,reduce-overhead"};
    auto s = run(args);
    ASSERT_EQ(s.size(), 2u);
    const std::string base = "gpt2[variant=compiled,batch_size=2,dtype=float32,device=cpu,threads=0,compile_mode=";
    EXPECT_EQ(s[base + "reduce-overhead]"].status, "skipped");
    EXPECT_EQ(s[base + "reduce-overhead]"].reason,
              "compile mode reduce-overhead is CUDA graphs, which the CPU has no equivalent of");
    const Scenario& cold = s[base + "default]"];
    ASSERT_EQ(cold.status, "success") << cold.reason;
    EXPECT_EQ(scalar(cold, "token_agreement"), 1.0);
    EXPECT_GT(scalar(cold, "compile_time"), scalar(cold, "export_time"));
    EXPECT_GT(scalar(cold, "package_load_time"), 0);
    for (const char* series : {"time_to_first_token", "time_per_output_token", "tokens_per_second"})
        EXPECT_TRUE(has_series(cold, series)) << series;
    const auto& info = (*cold.report)["info"];
    EXPECT_STREQ(info["variant_passes"].GetString(), "torch.export,aot_inductor(default,freezing)");
    const std::string cache = (work / "cache" / "benchhost" / "aot-inductor").string();
    const std::string misses = info["compile_cache"].GetString();
    const std::size_t split = misses.find("; ");
    ASSERT_NE(split, std::string::npos) << misses;
    const std::string prefill = misses.substr(0, split), decode = misses.substr(split + 2);
    EXPECT_EQ(prefill.rfind("miss: " + cache + "/gpt2-prefill-default-", 0), 0u) << misses;
    EXPECT_EQ(decode.rfind("miss: " + cache + "/gpt2-decode-default-", 0), 0u) << misses;

    // Again: both packages from the cache, nothing compiled, the same tokens.
    auto again = run(args);
    const Scenario& warm = again[base + "default]"];
    ASSERT_EQ(warm.status, "success") << warm.reason;
    EXPECT_EQ(std::string((*warm.report)["info"]["compile_cache"].GetString()),
              "hit: " + prefill.substr(6) + "; hit: " + decode.substr(6));
    EXPECT_TRUE(std::isnan(scalar(warm, "compile_time")));
    EXPECT_EQ(scalar(warm, "token_agreement"), 1.0);
}

TEST_F(TorchPluginsTest, Gpt2KernelizedAttentionGeneratesEagersTokens) {
    // Batch 2, 6 tokens: a prefill and decode steps over a growing prefix. In float32 the
    // plugin fails a variant whose tokens differ from eager's; info.attention says which
    // kernels ran.
    for (const auto& [option, attention] :
         {std::pair{"fused", "prefill flash_attention (causal), decode flash_attention (no mask)"},
          std::pair{"bmm", "bmm, _softmax, bmm (prefill: baddbmm with the causal mask)"}}) {
        auto s =
            run({"--include", "gpt2/gpt2", "--model-id", "gpt2-tiny", "--variants", "eager,kernelized", "--batch-sizes",
                 "2", "--num-tokens-to-generate", "6", "--param", std::string("attention=") + option});
        ASSERT_EQ(s.size(), 2u) << option;
        const Scenario& kernelized = s["gpt2[variant=kernelized,batch_size=2,dtype=float32,device=cpu,threads=0]"];
        ASSERT_EQ(kernelized.status, "success") << option << ": " << kernelized.reason;
        EXPECT_EQ(scalar(kernelized, "token_agreement"), 1.0) << option;
        EXPECT_STREQ((*kernelized.report)["info"]["attention"].GetString(), attention);
        const Scenario& eager = s["gpt2[variant=eager,batch_size=2,dtype=float32,device=cpu,threads=0]"];
        ASSERT_EQ(eager.status, "success") << eager.reason;
        EXPECT_STREQ(
            (*eager.report)["info"]["attention"].GetString(),
            "scaled_dot_product_attention: prefill flash_attention (is_causal, no mask), decode flash_attention "
            "(boolean mask over the static cache)");
    }
}

TEST_F(TorchPluginsTest, Gpt2ServesWithContinuousBatchingTheTokensOfGenerationsAlone) {
    // 4 closed-loop clients, 4 slots: queries join and leave the batch at different
    // steps, so they decode at different positions side by side. Before serving, the
    // plugin checks that three queries joining one step apart generate what each
    // generates alone (it fails the scenario otherwise).
    auto s = run({"--include", "gpt2/gpt2", "--model-id", "gpt2-tiny", "--variants", "eager,compiled", "--load",
                  "server", "--concurrency", "4", "--max-batch", "4", "--queries", "16", "--num-tokens-to-generate",
                  "6", "--warmup-iterations", "1"});
    ASSERT_EQ(s.size(), 2u);
    const Scenario& eager = s["gpt2[variant=eager,batch_size=1,dtype=float32,device=cpu,threads=0]"];
    ASSERT_EQ(eager.status, "success") << eager.reason;
    const auto& report = *eager.report;
    EXPECT_STREQ(report["info"]["batching_check"].GetString(),
                 "the tokens of 3 queries joining a batch one step apart equal those each generates alone");
    // 32 prompt tokens + 6 generated - 1: the positions ever fed to the model.
    EXPECT_STREQ(report["info"]["kv_cache"].GetString(),
                 "a slot per query in the batch, [4, heads, 37, head_dim] per layer");
    const auto& m = report["measurements"];
    for (const char* series : {"latency", "time_to_first_token", "time_per_output_token"})
        EXPECT_EQ(m[series]["count"].GetInt(), 16) << series;
    EXPECT_EQ(m["inter_token_latency"]["count"].GetInt(), 16 * 5);
    EXPECT_EQ(m["queries_per_batch"]["max"].GetDouble(), 4);  // the clients' queries shared steps
    EXPECT_EQ(scalar(eager, "max_batch"), 4);
    const Scenario& compiled =
        s["gpt2[variant=compiled,batch_size=1,dtype=float32,device=cpu,threads=0,compile_mode=torchscript]"];
    EXPECT_EQ(compiled.status, "skipped");
    EXPECT_EQ(compiled.reason, "--load: gpt2 serves (continuous batching) in the eager variant only");
}

TEST_F(TorchPluginsTest, Gpt2ContinuousBatchingGainsThroughputSideBySide) {
    // Offline, every query waiting: 4 slots decode 4 queries a step where 1 slot decodes
    // one. The throughputs are measured side by side, alternating one slot and four, three
    // times over (each run is a fraction of a second: a burst of load elsewhere can slow
    // one of them, and the medians pass it over). When the one-slot runs' median and
    // their extremes differ by more than 25%, the machine's load changed under the test
    // and the ratio says nothing about batching (skipped, with figures).
    const auto throughput = [&](const char* max_batch) {
        auto s = run({"--include", "gpt2/gpt2", "--model-id", "gpt2-tiny", "--variants", "eager", "--load", "offline",
                      "--queries", "32", "--max-batch", max_batch, "--num-tokens-to-generate", "16"});
        if (s.size() != 1u || s.begin()->second.status != "success") {
            ADD_FAILURE() << "--max-batch " << max_batch << ": no successful scenario";
            return std::nan("");
        }
        const Scenario& scenario = s.begin()->second;
        EXPECT_EQ((*scenario.report)["measurements"]["queries_per_batch"]["max"].GetDouble(), std::atof(max_batch));
        return scalar(scenario, "throughput");
    };
    std::vector<double> one_slot = {throughput("1")}, four_slots;
    for (int round = 0; round < 3; ++round) {
        four_slots.push_back(throughput("4"));
        one_slot.push_back(throughput("1"));
    }
    for (const double figure : one_slot) ASSERT_GT(figure, 0);
    for (const double figure : four_slots) ASSERT_GT(figure, 0);
    const auto median = [](std::vector<double> figures) {
        std::sort(figures.begin(), figures.end());
        const std::size_t n = figures.size();
        return n % 2 == 1 ? figures[n / 2] : (figures[n / 2 - 1] + figures[n / 2]) / 2;
    };
    const double alone = median(one_slot), batched = median(four_slots);
    std::printf(
        "gpt2-tiny offline: 1 slot %.1f, %.1f, %.1f, %.1f queries/s, 4 slots %.1f, %.1f, %.1f (medians x%.2f)\n",
        one_slot[0], one_slot[1], one_slot[2], one_slot[3], four_slots[0], four_slots[1], four_slots[2],
        batched / alone);
    const auto [lowest, highest] = std::minmax_element(one_slot.begin(), one_slot.end());
    if (*highest > 1.25 * alone || *lowest < alone / 1.25)
        GTEST_SKIP() << "the machine's load changed under the test: one slot gave " << *lowest << " to " << *highest
                     << " queries/s";
    EXPECT_GT(batched / alone, 1.3);
}

TEST_F(TorchPluginsTest, ResNet50ServesWithDynamicBatchingInEveryVariant) {
    // Offline, every query there at the start: batches of 4, then 2.
    auto s = run({"--include", "resnet50/resnet50", "--variants", "eager,compiled,kernelized", "--param",
                  "image_size=64", "--load", "offline", "--queries", "10", "--max-batch", "4"});
    ASSERT_EQ(s.size(), 3u);
    for (const auto& [name, scenario] : s) {
        ASSERT_EQ(scenario.status, "success") << name << ": " << scenario.reason;
        const auto& batches = (*scenario.report)["measurements"]["queries_per_batch"]["measurements"];
        ASSERT_EQ(batches.Size(), 3u) << name;
        EXPECT_EQ(batches[0].GetDouble(), 4) << name;
        EXPECT_EQ(batches[2].GetDouble(), 2) << name;
        EXPECT_GT(scalar(scenario, "throughput"), 0) << name;
    }
    // A graph per batch size, each checked against eager.
    const Scenario& compiled =
        s["resnet50[variant=compiled,batch_size=1,dtype=float32,device=cpu,threads=0,compile_mode=torchscript]"];
    EXPECT_GT(scalar(compiled, "serving_compile_time"), 0);
    EXPECT_LE(scalar(compiled, "max_abs_diff"), 1e-2);
}

TEST_F(TorchPluginsTest, VitB16ServesWithDynamicBatching) {
    // The kernelized variant packs its weights per number of rows: each batch size's
    // first call comes before the load.
    auto s = run({"--include", "vit_b_16/vit_b_16", "--variants", "eager,kernelized", "--load", "offline", "--queries",
                  "4", "--max-batch", "2", "--warmup-iterations", "0"});
    ASSERT_EQ(s.size(), 2u);
    for (const auto& [name, scenario] : s) {
        ASSERT_EQ(scenario.status, "success") << name << ": " << scenario.reason;
        EXPECT_EQ((*scenario.report)["measurements"]["queries_per_batch"]["median"].GetDouble(), 2) << name;
    }
}

TEST_F(TorchPluginsTest, Gpt2SmallHasTheParametersOfGpt2) {
    auto s = run({"--include", "gpt2/gpt2", "--model-id", "gpt2", "--variants", "eager", "--batch-sizes", "1",
                  "--num-tokens-to-generate", "2", "--measurement-iterations", "1"});
    ASSERT_EQ(s.size(), 1u);
    const Scenario& scenario = s.begin()->second;
    ASSERT_EQ(scenario.status, "success") << scenario.reason;
    EXPECT_EQ(scalar(scenario, "parameters"), 124'439'808);
}

TEST_F(TorchPluginsTest, Float16RunsOnTheCpuAndIsComparedWithFloat32) {
    // PyTorch 2.x runs float16 on the CPU (LibTorch 1.13 skipped it): inference is measured
    // and its output compared with the same model's in float32; training runs too. At
    // 64x64: float16 has no fast CPU kernels here, and 224x224 took over a minute.
    auto s = run({"--include", "resnet50/", "--variants", "eager", "--dtypes", "float16", "--batch-sizes", "1",
                  "--param", "image_size=64"});
    ASSERT_EQ(s.size(), 2u);
    for (const auto& [name, scenario] : s) {
        ASSERT_EQ(scenario.status, "success") << name << ": " << scenario.reason;
        EXPECT_EQ(std::string((*scenario.report)["metadata"]["config"]["dtype"].GetString()), "float16") << name;
    }
    const Scenario& inference = s["resnet50[variant=eager,batch_size=1,dtype=float16,device=cpu,threads=0]"];
    ASSERT_NE(inference.report, nullptr);
    const double difference = scalar(inference, "max_abs_diff_vs_float32");
    EXPECT_GT(difference, 0.0);  // float16 rounds: not the float32 output
    EXPECT_LT(difference, 1.0);  // but the same model's output
}

TEST_F(TorchPluginsTest, ResNet50TrainsWithAMeasuredMemoryBreakdown) {
    // Batch 1 at 64x64, two timed steps per optimizer; train declares eager alone
    // (compiled is an inference variant): compiled is not planned. The parts are measured
    // whatever the input's size; what is checked of them, the parameters' bytes and how
    // the parts add up to the peak, does not depend on it.
    auto s = run({"--include", "resnet50/train", "--variants", "eager,compiled", "--batch-sizes", "1", "--param",
                  "image_size=64", "--axis", "optimizer=sgd,adamw"});
    ASSERT_EQ(s.size(), 2u);

    constexpr double mib = 1024.0 * 1024.0;
    const double parameter_bytes = 4.0 * 25'557'032;  // float32
    for (const auto& [optimizer, moments] : {std::pair{"sgd", 1.0}, std::pair{"adamw", 2.0}}) {
        const Scenario& train = s["train[variant=eager,batch_size=1,dtype=float32,device=cpu,threads=0,optimizer=" +
                                  std::string(optimizer) + "]"];
        ASSERT_EQ(train.status, "success") << optimizer << ": " << train.reason;
        for (const char* series : {"step", "forward", "backward", "optimizer_step", "throughput"})
            EXPECT_TRUE(has_series(train, series)) << optimizer << ": " << series;
        EXPECT_EQ(scalar(train, "parameters"), 25'557'032);
        // Measured, not computed: parameters and gradients within 5% of their bytes, the
        // optimizer's state one (SGD's momentum) or two (AdamW's moments) times that.
        const double parameters = scalar(train, "memory_parameters") * mib;
        const double gradients = scalar(train, "memory_gradients") * mib;
        const double state = scalar(train, "memory_optimizer_state") * mib;
        const double activations = scalar(train, "memory_activations") * mib;
        const double peak = scalar(train, "memory_peak") * mib;
        EXPECT_NEAR(parameters / parameter_bytes, 1.0, 0.05) << optimizer;
        EXPECT_NEAR(gradients / parameter_bytes, 1.0, 0.05) << optimizer;
        EXPECT_NEAR(state / parameter_bytes, moments, 0.05 * moments) << optimizer;
        EXPECT_GT(activations, 0) << optimizer;
        // The breakdown adds up to the peak of a step within 10%.
        EXPECT_NEAR((parameters + gradients + state + activations) / peak, 1.0, 0.10) << optimizer;
        EXPECT_NEAR(scalar(train, "memory_breakdown_over_peak"), (parameters + gradients + state + activations) / peak,
                    1e-9);
        EXPECT_NEAR(scalar(train, "memory_training_over_inference"),
                    peak / (scalar(train, "memory_inference_peak") * mib), 1e-9);
        EXPECT_GT(scalar(train, "memory_training_over_inference"), 1.0) << optimizer;
        // The plugin checked the same and found nothing to warn about.
        for (const auto& warning : (*train.report)["warnings"].GetArray())
            EXPECT_EQ(std::string(warning.GetString()).find("memory"), std::string::npos) << warning.GetString();
    }

    // At 32x32 the last stage's maps are 1x1: batch norm cannot train on batch 1 there,
    // and the plugin says what to change rather than passing on LibTorch's error.
    auto tiny = run({"--include", "resnet50/train", "--batch-sizes", "1", "--param", "image_size=32"}, 1);
    ASSERT_EQ(tiny.size(), 1u);
    const Scenario& refused = tiny.begin()->second;
    EXPECT_EQ(refused.status, "failed");
    EXPECT_NE(refused.reason.find("train: batch_size 1 at image_size 32 leaves the last stage's batch norm one value "
                                  "per channel, and it cannot train on one: use batch_size 2 or more, or image_size "
                                  "33 or more"),
              std::string::npos)
        << refused.reason;
}

TEST_F(TorchPluginsTest, VitB16TrainsWithAMeasuredMemoryBreakdown) {
    // The same flow as ResNet-50's, on a model with no batch norm: SGD, batch 1, one timed step.
    auto s = run({"--include", "vit_b_16/train", "--variants", "eager", "--batch-sizes", "1", "--warmup-iterations",
                  "0", "--measurement-iterations", "1"});
    ASSERT_EQ(s.size(), 1u);
    const Scenario& train = s["train[variant=eager,batch_size=1,dtype=float32,device=cpu,threads=0]"];
    ASSERT_EQ(train.status, "success") << train.reason;
    EXPECT_EQ(scalar(train, "parameters"), 86'567'656);
    constexpr double mib = 1024.0 * 1024.0;
    const double parameter_bytes = 4.0 * 86'567'656;  // float32; ViT has no buffers
    EXPECT_NEAR(scalar(train, "memory_parameters") * mib / parameter_bytes, 1.0, 0.05);
    EXPECT_NEAR(scalar(train, "memory_gradients") * mib / parameter_bytes, 1.0, 0.05);
    EXPECT_NEAR(scalar(train, "memory_optimizer_state") * mib / parameter_bytes, 1.0, 0.05);  // SGD's momentum
    // Parameters, gradients and momentum are all live at the optimizer step: the peak
    // holds them. The gradients stay allocated from step to step (zeroed in place), so
    // the four parts add up to the peak as ResNet-50's do (0.99 at batch 1 with SDPA).
    const double peak = scalar(train, "memory_peak") * mib;
    const double kept = (scalar(train, "memory_parameters") + scalar(train, "memory_gradients") +
                         scalar(train, "memory_optimizer_state")) *
                        mib;
    EXPECT_GE(peak, 0.99 * kept);
    EXPECT_NEAR(scalar(train, "memory_breakdown_over_peak"), 1.0, 0.10);
    for (const char* series : {"step", "forward", "backward", "optimizer_step", "throughput"})
        EXPECT_TRUE(has_series(train, series)) << series;
}

TEST_F(TorchPluginsTest, Gpt2TrainsAsALanguageModel) {
    // gpt2-tiny, sequences of 16 ids, AdamW: every position's logits against the next id.
    auto s = run({"--include", "gpt2/train", "--model-id", "gpt2-tiny", "--variants", "eager", "--batch-sizes", "2",
                  "--param", "prompt_tokens=16", "--param", "optimizer=adamw", "--measurement-iterations", "3"});
    ASSERT_EQ(s.size(), 1u);
    const Scenario& train = s.begin()->second;
    ASSERT_EQ(train.status, "success") << train.reason;
    EXPECT_EQ(scalar(train, "parameters"), 560'640);
    constexpr double mib = 1024.0 * 1024.0;
    const double parameter_bytes = 4.0 * 560'640;  // the LM head is the token embedding: counted once
    EXPECT_NEAR(scalar(train, "memory_parameters") * mib / parameter_bytes, 1.0, 0.05);
    EXPECT_NEAR(scalar(train, "memory_gradients") * mib / parameter_bytes, 1.0, 0.05);
    EXPECT_NEAR(scalar(train, "memory_optimizer_state") * mib / parameter_bytes, 2.0, 0.10);  // AdamW's two moments
    // A loss below that of guessing among 1,024 ids (ln 1024 = 6.93): the steps learn.
    EXPECT_LT(scalar(train, "loss"), 6.93);
    EXPECT_GT(scalar(train, "loss"), 0);
    for (const char* series : {"step", "forward", "backward", "optimizer_step", "throughput"})
        EXPECT_TRUE(has_series(train, series)) << series;
}

TEST_F(TorchPluginsTest, TorchScriptFilesRoundTripAndCompare) {
    // Two TorchScript files written by the test, with the tool the build uses.
    const fs::path tool = build_dir / "tools/make_example_torchscript";
    for (const char* name : {"a.pt", "b.pt"})
        ASSERT_EQ(run_process({tool.string(), (work / name).string()}).exit_code, 0);

    auto s = run({"--include", "torchscript_model", "--model-path", (work / "a.pt").string(), "--variants",
                  "eager,compiled,kernelized", "--batch-sizes", "1,4", "--param", "input_shape=3,32,32"});
    // The plugin declares eager and compiled: a file's layers are fixed in it, no kernelized.
    ASSERT_EQ(s.size(), 4u);
    const Scenario& eager = s["torchscript_model[variant=eager,batch_size=4,dtype=float32,device=cpu,threads=0]"];
    ASSERT_EQ(eager.status, "success") << eager.reason;
    EXPECT_EQ(scalar(eager, "parameters"), 16 * 27 + 16 + 32 * 144 + 32 + 10 * 32 + 10);
    EXPECT_GT(scalar(eager, "file_size"), 0);
    EXPECT_TRUE(has_series(eager, "throughput"));
    const Scenario& compiled = s["torchscript_model[variant=compiled,batch_size=1,dtype=float32,device=cpu,threads=0]"];
    ASSERT_EQ(compiled.status, "success") << compiled.reason;
    EXPECT_LE(scalar(compiled, "max_abs_diff"), 1e-4);
    EXPECT_EQ(s.count("torchscript_model[variant=kernelized,batch_size=1,dtype=float32,device=cpu,threads=0]"), 0u);

    s = run({"--include", "torchscript_model", "--param",
             "models=first:" + (work / "a.pt").string() + ",second:" + (work / "b.pt").string(), "--variants", "eager",
             "--batch-sizes", "2", "--param", "input_shape=3,32,32"});
    ASSERT_EQ(s.size(), 1u);
    const Scenario& comparison = s.begin()->second;
    ASSERT_EQ(comparison.status, "success") << comparison.reason;
    EXPECT_TRUE(has_series(comparison, "first/latency"));
    EXPECT_TRUE(has_series(comparison, "second/latency"));
    EXPECT_GT(scalar(comparison, "second/speedup_over_first"), 0);

    s = run({"--include", "torchscript_model", "--variants", "eager", "--batch-sizes", "1"});
    EXPECT_EQ(s.begin()->second.status, "skipped");
    EXPECT_NE(s.begin()->second.reason.find("--model-path"), std::string::npos);
}

TEST_F(TorchPluginsTest, ModelsRunOnTheImagesOfAFolder) {
    // Three images of two classes, one JPEG and two PNG, of sizes that need resizing and
    // cropping: the models' input is their first batch_size, preprocessed.
    const fs::path images = work / "images";
    fs::create_directories(images / "cat");
    fs::create_directories(images / "dog");
    write_jpeg(images / "cat/1.jpg", solid(300, 200, 200, 30, 30));
    write_png(images / "cat/2.png", solid(120, 260, 30, 200, 30));
    write_png(images / "dog/1.png", solid(64, 64, 30, 30, 200));
    auto s = run({"--include", "resnet50/resnet50", "--include", "vit_b_16/vit_b_16", "--variants", "eager",
                  "--batch-sizes", "2", "--measurement-iterations", "1", "--param", "dataset=" + images.string()});
    ASSERT_EQ(s.size(), 2u);
    for (const char* name : {"resnet50[variant=eager,batch_size=2,dtype=float32,device=cpu,threads=0]",
                             "vit_b_16[variant=eager,batch_size=2,dtype=float32,device=cpu,threads=0]"}) {
        const Scenario& scenario = s[name];
        ASSERT_EQ(scenario.status, "success") << name << ": " << scenario.reason;
        EXPECT_EQ(scalar(scenario, "dataset_images"), 2) << name;  // only the images the batch needs
        EXPECT_GT(scalar(scenario, "preprocess_time"), 0) << name;
        EXPECT_GT(scalar(scenario, "preprocess_per_image"), 0) << name;
        EXPECT_STREQ((*scenario.report)["info"]["dataset"].GetString(),
                     (images.string() + ": 2 of 3 images, 2 classes").c_str());
        EXPECT_TRUE(has_series(scenario, "latency")) << name;
    }
}

TEST_F(TorchPluginsTest, AFolderThatCannotBeReadFailsTheScenarioSayingWhy) {
    const fs::path tool = build_dir / "tools/make_example_torchscript";
    ASSERT_EQ(run_process({tool.string(), (work / "cnn.pt").string()}).exit_code, 0);
    auto reason_with = [&](const fs::path& dataset) {
        auto s = run({"--include", "torchscript_model", "--model-path", (work / "cnn.pt").string(), "--variants",
                      "eager", "--batch-sizes", "1", "--param", "dataset=" + dataset.string()},
                     1);
        EXPECT_EQ(s.size(), 1u);
        EXPECT_EQ(s.begin()->second.status, "failed");
        return s.begin()->second.reason;
    };
    EXPECT_NE(reason_with(work / "nowhere").find("data set " + (work / "nowhere").string() + " does not exist"),
              std::string::npos);
    fs::create_directories(work / "flat");
    write_png(work / "flat/a.png", solid(8, 8, 1, 2, 3));
    EXPECT_NE(reason_with(work / "flat").find("has no class folders"), std::string::npos);
    fs::create_directories(work / "broken/cat");
    write_png(work / "broken/cat/a.png", solid(8, 8, 1, 2, 3));
    write_file(work / "broken/cat/b.jpg", "<html>not an image</html>");
    EXPECT_NE(reason_with(work / "broken")
                  .find((work / "broken/cat/b.jpg").string() + ": not a JPEG or PNG file (it starts with 3c 68 74 6d)"),
              std::string::npos);
}

TEST_F(TorchPluginsTest, ClassifiersOfAFolderReportTheirExactAccuracy) {
    // Ten images whose classes the colour classifier gets right 7 times, and 9 times in
    // its top 5; with two centres swapped, 5 and 9 (tests/support/image_files.hpp).
    const fs::path images = work / "colours";
    write_colour_dataset(images);
    const fs::path tool = build_dir / "tools/make_colour_classifier";
    ASSERT_EQ(run_process({tool.string(), (work / "original.pt").string()}).exit_code, 0);
    ASSERT_EQ(run_process({tool.string(), (work / "swapped.pt").string(), "--swap", "3,4"}).exit_code, 0);
    auto s = run({"--include", "torchscript_model", "--param",
                  "models=original:" + (work / "original.pt").string() + ",swapped:" + (work / "swapped.pt").string(),
                  "--param", "dataset=" + images.string(), "--variants", "eager,compiled", "--batch-sizes", "4",
                  "--dtypes", "float32,bfloat16"});
    ASSERT_EQ(s.size(), 4u);
    for (const char* variant : {"eager", "compiled"}) {
        for (const char* dtype : {"float32", "bfloat16"}) {
            const std::string name = "torchscript_model[variant=" + std::string(variant) +
                                     ",batch_size=4,dtype=" + dtype + ",device=cpu,threads=0]";
            const Scenario& scenario = s[name];
            ASSERT_EQ(scenario.status, "success") << name << ": " << scenario.reason;
            EXPECT_EQ(scalar(scenario, "dataset_images"), 10) << name;
            const auto& accuracy = (*scenario.report)["accuracy"];
            ASSERT_TRUE(accuracy.IsObject()) << name;
            const std::pair<const char*, int> expected[] = {{"original", 7}, {"swapped", 5}};
            for (const auto& [model, top1] : expected) {
                ASSERT_TRUE(accuracy.HasMember(model)) << name << " " << model;
                const auto& a = accuracy[model];
                EXPECT_EQ(a["inputs"].GetInt(), 10) << name << " " << model;
                EXPECT_EQ(a["top1_correct"].GetInt(), top1) << name << " " << model;
                EXPECT_EQ(a["top5_correct"].GetInt(), 9) << name << " " << model;
                EXPECT_DOUBLE_EQ(a["top1"].GetDouble(), top1 / 10.0) << name << " " << model;
                EXPECT_DOUBLE_EQ(a["top5"].GetDouble(), 0.9) << name << " " << model;
                EXPECT_EQ(a["dataset"].GetString(), images.string()) << name << " " << model;
            }
            // How far each model's output is from its float32 output on the same images:
            // float32 eager is float32 itself.
            for (const char* model : {"original", "swapped"}) {
                const double abs_diff = scalar(scenario, (std::string(model) + "/max_abs_diff_vs_float32").c_str());
                const double rel_diff = scalar(scenario, (std::string(model) + "/max_rel_diff_vs_float32").c_str());
                if (std::string(dtype) == "float32" && std::string(variant) == "eager") {
                    EXPECT_EQ(abs_diff, 0.0) << name << " " << model;
                    EXPECT_EQ(rel_diff, 0.0) << name << " " << model;
                } else {
                    EXPECT_GE(abs_diff, 0.0) << name << " " << model;
                    EXPECT_LT(abs_diff, 0.5) << name << " " << model;
                }
            }
        }
    }
    // report.md lists them beside their latency; report.html draws them against it.
    const std::string markdown = read_file(output / "report.md");
    EXPECT_NE(markdown.find("## Accuracy"), std::string::npos);
    EXPECT_NE(markdown.find("| torchscript_model | eager | float32 | 4 | original | 70.0% (7/10) | 90.0% (9/10) | " +
                            images.string() + " | "),
              std::string::npos)
        << markdown;
    EXPECT_NE(
        markdown.find(
            "| torchscript_model | compiled/torchscript | bfloat16 | 4 | swapped | 50.0% (5/10) | 90.0% (9/10) | "),
        std::string::npos)
        << markdown;
    // The dtypes side by side: latency, speedup over float32, difference from float32.
    const auto line_starting = [&](const std::string& start) {
        const auto at = markdown.find(start);
        return at == std::string::npos ? std::string() : markdown.substr(at, markdown.find('\n', at) - at);
    };
    EXPECT_NE(markdown.find("## Precision side by side"), std::string::npos);
    const std::string float32_row = line_starting(
        "| torchscript_model | variant=eager, batch_size=4, device=cpu, threads=0 | original | float32 | ");
    EXPECT_TRUE(float32_row.ends_with(" | 0 | 0 |")) << markdown;  // float32 against itself
    EXPECT_NE(float32_row.find("| 1.00x (baseline) |"), std::string::npos) << float32_row;
    EXPECT_FALSE(
        line_starting(
            "| torchscript_model | variant=compiled, batch_size=4, device=cpu, threads=0 | swapped | bfloat16 | ")
            .empty())
        << markdown;
    const std::string html = read_file(output / "report.html");
    EXPECT_NE(html.find("<section id=\"precision\">"), std::string::npos);
    EXPECT_NE(html.find("<section id=\"accuracy\">"), std::string::npos);
    EXPECT_NE(html.find("top-1 accuracy against median latency"), std::string::npos);
    EXPECT_NE(html.find("original, eager, float32, batch 4: top-1 70.0%, top-5 90.0% of 10"), std::string::npos);
    // Both models have the same parameters: throughput against parameters would be one
    // column of points, so it is not drawn.
    EXPECT_EQ(html.find("<section id=\"scaling\">"), std::string::npos);
}

}  // namespace
