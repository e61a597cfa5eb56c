// torchscript_model: benchmarks TorchScript files the user has.
//
// Which files: `--model-path FILE` (parameter model_path), or several to compare with
// the parameter `models`, a list of LABEL:PATH (`--param models=original:a.pt,quantized:b.pt`).
// Inputs are random, of shape [batch, input_shape...] (parameter input_shape, default
// 3,224,224), floating point in the scenario's dtype, or token ids in [0, input_max)
// with input_dtype int64. With the parameter dataset (`--param dataset=DIR`, an image
// folder: one sub-folder per class, JPEG and PNG files) they are the folder's images
// instead, resized, centre-cropped to 224 and normalised (bench/torch/image_dataset.hpp),
// all of them decoded once before any model runs (the first dataset_limit with that
// parameter), and a batch is its first batch_size images.
//
// Variants: eager runs the module as loaded; compiled freezes it and applies
// optimize_for_inference, and must produce the same output; a TorchScript file has no
// kernelized variant.
//
// A file ending in .pt2 is an AOTInductor package (torch._inductor.aoti_compile_and_package,
// built elsewhere): loaded with the SDK's aot_load (refused, naming it, when it was
// compiled for another device or by another torch) and timed as given in the compiled
// variant, whatever the compile mode; eager and kernelized are skipped. It runs with the
// input shapes and dtype it was compiled for (--param input_shape, --dtypes). The files of
// one run are all TorchScript files or all packages.
//
// Per model it records the file size, the parameter count, the load time, latency and
// throughput per batch; with several models each series is prefixed "<label>/" and
// the first model's are also the scenario's headline "latency" and "throughput". With a
// data set, each model's top-1 and top-5 accuracy over all of its images, in the
// scenario's variant and dtype (the folder's classes, in sorted order, are the model's
// class indices), evaluated outside the timed samples. In a dtype other than float32,
// how far each model's output is from its float32 output on the same input
// ("max_abs_diff_vs_float32", "max_rel_diff_vs_float32"; for float32, from its first
// call's).
#include <bench/plugin.hpp>
#include <bench/statistics.hpp>
#include <bench/torch/accuracy.hpp>
#include <bench/torch/aot_inductor.hpp>
#include <bench/torch/classification.hpp>
#include <bench/torch/compile.hpp>
#include <bench/torch/device.hpp>
#include <bench/torch/image_dataset.hpp>
#include <bench/torch/model_benchmark.hpp>
#include <bench/torch/precision.hpp>
#include <bench/torch/profiling.hpp>

#include <torch/script.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <vector>

// No kernelized variant: a file's layers are fixed in it.
BENCH_PLUGIN("torchscript_model", "1.0.0", .axes = "variant,batch_size,dtype,device,threads",
             .variants = bench::eager_bit | bench::compiled_bit);

namespace {

namespace fs = std::filesystem;

struct ModelFile {
    std::string label;
    fs::path path;
};

/// An AOTInductor package (torch._inductor.aoti_compile_and_package), not a TorchScript file.
bool is_package(const fs::path& path) { return path.extension() == ".pt2"; }

std::vector<ModelFile> model_files(const bench::Params& params) {
    std::vector<ModelFile> files;
    for (const std::string& entry : params.get_string_list("models")) {
        const auto colon = entry.find(':');
        if (colon == std::string::npos) files.push_back({fs::path(entry).stem().string(), entry});
        else files.push_back({entry.substr(0, colon), entry.substr(colon + 1)});
    }
    if (files.empty() && params.contains("model_path")) {
        const fs::path path = params.get_string("model_path");
        files.push_back({path.stem().string(), path});
    }
    for (const ModelFile& file : files) {
        if (file.label.empty() || file.path.empty())
            throw std::invalid_argument("parameter models: each entry is LABEL:PATH, got '" + file.label + ":" +
                                        file.path.string() + "'");
        if (!fs::is_regular_file(file.path))
            throw std::invalid_argument((is_package(file.path) ? "package " : "TorchScript file ") +
                                        file.path.string() + " does not exist");
    }
    return files;
}

/// The first tensor of a module's output: a tensor, or the first of a tuple or list.
torch::Tensor first_tensor(const c10::IValue& output) {
    if (output.isTensor()) return output.toTensor();
    if (output.isTuple()) {
        for (const auto& element : output.toTupleRef().elements())
            if (element.isTensor()) return element.toTensor();
    }
    if (output.isList()) {
        for (const c10::IValue& element : output.toListRef())
            if (element.isTensor()) return element.toTensor();
    }
    throw std::runtime_error("the model's output holds no tensor");
}

torch::Tensor make_input(const bench::Params& params, int64_t batch, torch::Device device, torch::ScalarType dtype) {
    std::vector<int64_t> shape = {batch};
    for (long long extent : params.get_int_list("input_shape", {3, 224, 224})) shape.push_back(extent);
    torch::manual_seed(params.get_int("seed", 0));
    if (params.get_string("input_dtype", "float") == "int64")
        return torch::randint(params.get_int("input_max", 1000), shape, torch::dtype(torch::kLong).device(device));
    return torch::randn(shape, torch::dtype(torch::kFloat).device(device)).to(dtype);
}

int64_t parameter_count(const torch::jit::Module& module) {
    int64_t count = 0;
    for (const torch::Tensor& parameter : module.parameters()) count += parameter.numel();
    return count;
}

double since_ms(bench::Clock::time_point start) { return bench::elapsed_ns(start, bench::Clock::now()) / 1e6; }

}  // namespace

BENCH_RUN_BENCHMARK(ctx) {
    const auto& config = ctx.config();
    const std::vector<ModelFile> files = model_files(ctx.params());
    if (files.empty()) ctx.skip("no TorchScript file to run: pass --model-path FILE, or --param models=LABEL:PATH,...");
    const bool packages = is_package(files.front().path);
    for (const ModelFile& file : files)
        if (is_package(file.path) != packages)
            throw std::invalid_argument("parameter models: " + files.front().path.string() + " and " +
                                        file.path.string() +
                                        " are not of one kind (TorchScript files and .pt2 packages run apart)");
    if (config.variant == bench::Variant::kernelized)
        ctx.skip(std::string(packages ? "a .pt2 package" : "a TorchScript file") +
                 " has no kernelized variant: its layers are fixed in the file");
    // A package is compiled already (AOTInductor): the compiled variant times it as given,
    // whatever the compile mode; there is no eager form of it to run.
    if (packages && config.variant == bench::Variant::eager)
        ctx.skip("a .pt2 package is compiled ahead of time: the compiled variant times it as given");
    if (!packages && config.variant == bench::Variant::compiled)
        bench::libtorch::require_torchscript_mode(ctx, "torchscript_model");

    bench::libtorch::ThreadScope threads(ctx);
    const torch::Device device = bench::libtorch::select_device(ctx);
    bench::libtorch::retain_freed_memory(ctx);
    const torch::ScalarType dtype = bench::libtorch::select_dtype(ctx, device);
    ctx.set_info("framework", "libtorch");
    ctx.set_info("model", files.size() == 1 ? files[0].label : "comparison");
    if (packages) ctx.set_info("variant_passes", "a .pt2 package as given (compiled elsewhere)");
    torch::NoGradGuard no_grad;

    std::optional<bench::libtorch::ImageDataset> dataset;
    if (ctx.params().contains("dataset")) {
        const bench::libtorch::ImageFolder folder =
            bench::libtorch::scan_image_folder(ctx.params().get_string("dataset"));
        dataset = bench::libtorch::load_image_dataset(folder, {}, ctx.params().get_int("dataset_limit", -1));
        bench::libtorch::record_dataset(ctx, *dataset);
    }

    const bool several = files.size() > 1;
    double first_median = 0;
    bench::libtorch::Forward profiled;  // the first file's, for --profile
    torch::Tensor profiled_input;
    for (const ModelFile& file : files) {
        const std::string prefix = several ? file.label + "/" : "";
        const auto input_in = [&](torch::ScalarType type) {
            return dataset ? bench::libtorch::dataset_batch(*dataset, config.batch_size).to(device, type)
                           : make_input(ctx.params(), config.batch_size, device, type);
        };
        ctx.record_scalar(prefix + "file_size", static_cast<double>(fs::file_size(file.path)) / (1 << 20), "MiB");
        ctx.set_info(prefix + "path", fs::absolute(file.path).string());
        const torch::Tensor input = input_in(dtype);
        bench::libtorch::Forward forward;
        std::string parameters = "?";
        if (packages) {
            // As given: its dtype and shapes are the ones it was compiled for. A package
            // checks its inputs against them only when AOTI_RUNTIME_CHECK_INPUTS is set (read
            // once, at its first call); without the check an input of other sizes is read
            // out of bounds. The check is a few comparisons a call, inside the timed calls.
            ::setenv("AOTI_RUNTIME_CHECK_INPUTS", "1", 0);
            auto start = bench::Clock::now();
            auto package = std::make_shared<bench::libtorch::AotModel>(bench::libtorch::aot_load(file.path, device));
            ctx.record_scalar(prefix + "load_time", since_ms(start), "ms");
            forward = [package](const torch::Tensor& x) { return package->operator()({x}).at(0); };
            start = bench::Clock::now();
            try {
                bench::do_not_optimize(forward(input));
            } catch (const std::exception& e) {
                const std::string what = e.what();
                throw std::runtime_error(file.path.string() + ": the package does not take an input of shape " +
                                         c10::str(input.sizes()) + " in " + bench::libtorch::dtype_name(dtype) +
                                         " (it runs with the shapes and dtype it was compiled for: --param "
                                         "input_shape, --dtypes): " +
                                         what.substr(0, what.find('\n')));
            }
            bench::libtorch::synchronize(device);
            ctx.record_scalar(prefix + "first_call", since_ms(start), "ms");
        } else {
            auto start = bench::Clock::now();
            torch::jit::Module module = torch::jit::load(file.path.string(), device);
            const double load_ms = since_ms(start);
            module.eval();
            // In another dtype, the model's float32 output on the same input first: what
            // that dtype's output is compared with (below).
            torch::Tensor float32_output;
            if (dtype != torch::kFloat) {
                module.to(torch::kFloat);
                float32_output = first_tensor(module.forward({input_in(torch::kFloat)}));
            }
            if (torch::isFloatingType(dtype)) module.to(dtype);
            parameters = std::to_string(parameter_count(module));
            ctx.record_scalar(prefix + "parameters", static_cast<double>(parameter_count(module)), "count");
            ctx.record_scalar(prefix + "load_time", load_ms, "ms");

            std::vector<c10::IValue> inputs{input};
            const torch::Tensor reference = first_tensor(module.forward(inputs));
            if (config.variant == bench::Variant::compiled) {
                start = bench::Clock::now();
                torch::jit::Module frozen = torch::jit::freeze(module);
                module = torch::jit::optimize_for_inference(frozen);
                module.forward(inputs);  // the first call specializes the graph: part of compiling
                ctx.record_scalar(prefix + "compile_time", since_ms(start), "ms");
                bench::libtorch::check_against_reference(ctx, reference, first_tensor(module.forward(inputs)), dtype);
            }
            // How far the output is from float32's on the same input (float32: from the
            // first call's), outside the timed samples.
            bench::libtorch::record_difference_from_float32(ctx, dtype == torch::kFloat ? reference : float32_output,
                                                            first_tensor(module.forward(inputs)), dtype, prefix);
            forward = [module](const torch::Tensor& x) mutable { return first_tensor(module.forward({x})); };
        }

        if (dataset) {  // top-1 and top-5 over the whole folder, outside the timed samples
            const bench::Accuracy accuracy = bench::libtorch::classification_accuracy(forward, *dataset, file.label,
                                                                                      config.batch_size, device, dtype);
            ctx.record_accuracy(accuracy);
            ctx.log().info("{}: top-1 {}/{}, top-5 {}/{}", file.label, accuracy.top1_correct, accuracy.inputs,
                           accuracy.top5_correct, accuracy.inputs);
        }

        const bench::Series latency = bench::libtorch::measure_synchronized(
            ctx, prefix + "latency", device, [&] { bench::do_not_optimize(forward(input)); });
        ctx.record_throughput(prefix + "throughput", latency, config.batch_size, "samples/s");
        if (!profiled) {
            profiled = forward;
            profiled_input = input;
        }
        const double median = bench::summarize(latency.samples).median;
        ctx.log().info("{}: {} parameters, median {:.3f} ms at batch {}", file.label, parameters, median,
                       config.batch_size);
        if (!several) continue;
        if (&file == &files.front()) {
            first_median = median;
            ctx.record_series("latency", latency.samples, "ms", latency.inner_iterations);
            ctx.record_throughput("throughput", latency, config.batch_size, "samples/s");
        } else {
            ctx.record_scalar(prefix + "speedup_over_" + files.front().label, first_median / median, "x");
        }
    }
    bench::libtorch::record_memory(ctx, device);

    // --profile: one forward pass of the first file, profiled apart from everything measured.
    bench::libtorch::profile(ctx, files.front().label + " forward", [&] {
        bench::do_not_optimize(profiled(profiled_input));
        bench::libtorch::synchronize(device);
    });
}
